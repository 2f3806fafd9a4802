"""The loopback server lets a browser keep what it served, and never serve a stale copy.

Every answer carries a strong entity tag (a digest of the bytes) and ``Cache-Control:
no-cache``: the browser may keep the file, but asks before each use. A request naming the
tag of the bytes on disk is answered 304 with no body (the browser keeps its copy, and with
Pyodide's WebAssembly its compiled code); once the bytes change, the same request gets the
new bytes. ADR 0258.
"""

from __future__ import annotations

import http.client
from pathlib import Path

import pytest
from skidpad.parity.server import LoopbackServer, entity_tag


@pytest.fixture()
def tree(tmp_path: Path) -> dict[str, Path]:
    dist = tmp_path / "pyodide"
    dist.mkdir()
    (dist / "pyodide.mjs").write_text("export const x = 1;\n")
    (dist / "pyodide.asm.wasm").write_bytes(b"\0asm" + bytes(range(256)) * 64)
    wheel = tmp_path / "skidpad-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK wheel bytes, first build")
    return {"dist": dist, "wheel": wheel}


def _get(port: int, path: str, if_none_match: str | None = None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {} if if_none_match is None else {"If-None-Match": if_none_match}
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_an_answer_may_be_kept_but_is_asked_for_again(tree) -> None:
    with LoopbackServer(tree["wheel"], tree["dist"]) as srv:
        status, headers, body = _get(srv.port, "/pyodide/pyodide.asm.wasm")
    assert status == 200 and body == (tree["dist"] / "pyodide.asm.wasm").read_bytes()
    assert headers["cache-control"] == "no-cache"  # not no-store, not a max-age
    assert headers["etag"] == entity_tag(body)


def test_the_tag_of_the_served_bytes_gets_304_and_no_body(tree) -> None:
    with LoopbackServer(tree["wheel"], tree["dist"]) as srv:
        _, first, _ = _get(srv.port, "/pyodide/pyodide.asm.wasm")
        tag = first["etag"]
        for header in (tag, f'"other", {tag}', f"W/{tag}", "*"):
            status, headers, body = _get(srv.port, "/pyodide/pyodide.asm.wasm", header)
            assert (status, body, headers["etag"]) == (304, b"", tag), header
        status, _, body = _get(srv.port, "/pyodide/pyodide.asm.wasm", '"not-the-tag"')
        assert status == 200 and body
        assert srv.refused() == []  # a 304 is an answer, not a refusal


def test_changed_bytes_are_served_to_a_browser_holding_the_old_ones(tree) -> None:
    with LoopbackServer(tree["wheel"], tree["dist"]) as srv:
        url = f"/wheel/{tree['wheel'].name}"
        _, first, old = _get(srv.port, url)
        tree["wheel"].write_bytes(b"PK wheel bytes, the engine rebuilt")
        status, headers, new = _get(srv.port, url, first["etag"])
    assert status == 200 and new == b"PK wheel bytes, the engine rebuilt" != old
    assert headers["etag"] == entity_tag(new) != first["etag"]


def test_an_unknown_path_is_refused_whatever_tag_it_names(tree) -> None:
    with LoopbackServer(tree["wheel"], tree["dist"]) as srv:
        status, _, _ = _get(srv.port, "/pyodide/../secret", "*")
    assert status == 404

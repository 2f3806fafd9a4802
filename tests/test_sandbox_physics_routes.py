"""What `skidpad sandbox` serves of the archive (ADR 0206): each archived version alone, as a
zip the page fetches when a loaded recording needs it; the page's wheel stays without it."""

from __future__ import annotations

import http.client
import json
import zipfile
from io import BytesIO

from skidpad.parity.server import LoopbackServer
from skidpad.replay import archive
from skidpad.sandbox import WEB_DIR, WEB_FILES
from skidpad.sandbox.serve import (
    PAGE_OMITS,
    page_wheel,
    physics_routes,
    pyodide_dir,
    wheel_from_installed,
)


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    out = (response.status, response.read())
    conn.close()
    return out


def test_each_archived_version_is_served_alone_and_whole(tmp_path) -> None:
    wheel = wheel_from_installed(tmp_path / "wheel")
    routes = physics_routes(tmp_path / "zips")
    numbers = archive.archived_versions()
    assert sorted(routes) == sorted(f"/physics/v{n}.zip" for n in numbers)
    index = json.loads(archive.shipped_entries()["index.json"])["versions"]
    with LoopbackServer(wheel, pyodide_dir(), WEB_DIR, WEB_FILES, extra=routes) as server:
        for n in numbers:
            status, data = _get(server.port, f"/physics/v{n}.zip")
            assert status == 200
            with zipfile.ZipFile(BytesIO(data)) as zf:
                one = json.loads(zf.read("index.json"))["versions"]
                assert one == {str(n): index[str(n)]}  # that version's files, nothing else
                objects = {f"objects/{s}" for s in index[str(n)]["files"].values()}
                assert set(zf.namelist()) == objects | {"index.json"}
            assert len(data) < archive.archive_size()
        assert _get(server.port, f"/physics/v{max(numbers) + 2}.zip")[0] == 404
        assert _get(server.port, "/physics/")[0] == 404


def test_the_pages_wheel_still_leaves_the_archive_out(tmp_path) -> None:
    names = set(zipfile.ZipFile(page_wheel(wheel_from_installed(tmp_path))).namelist())
    assert not set(PAGE_OMITS) & names
    assert "skidpad/replay/archive_inprocess.py" in names
    assert "skidpad/sandbox/web/physics.js" in names

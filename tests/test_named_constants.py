"""The four-wheel engine reads its folded constants by name: no ``k[3]``, ``gk[1][0]`` or
``self.steer_k[7]``, the numbered-slot style its constants records replaced. A record that is
indexed by a number somewhere has a field nobody named at that place."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the four-wheel engine's modules; engine/commonroad keeps CommonRoad's state vectors (x[0]..)
# and engine/smath its tables, both indexed by design
MODULES = sorted(p for p in (ROOT / "engine").glob("*.py"))


def _constants_name(node: ast.AST) -> str | None:
    """The name of a constants record (``k``, ``gk``, ``self.steer_k``...), else None."""
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute):
        name = node.attr
    else:
        return None
    short = len(name) == 2 and name[1] == "k"  # gk, pk, ck, ak...
    return name if name == "k" or name.endswith("_k") or short else None


def numbered_reads(source: str) -> list[str]:
    """``name[<int>]`` reads of constants records in ``source``, as ``line: text``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            if isinstance(node.slice.value, int) and _constants_name(node.value):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_engine_reads_no_constants_by_number() -> None:
    offenders = [
        f"{p.relative_to(ROOT)}:{hit}"
        for p in MODULES
        for hit in numbered_reads(p.read_text(encoding="utf-8"))
    ]
    assert not offenders, "constants read by position:\n" + "\n".join(offenders)


def test_a_numbered_read_is_found() -> None:
    planted = "def f(k, sim):\n    return k[3] + sim.steer_k[7] + gk[1][0] + wheel_k[0]['x']\n"
    assert sorted(hit.split(": ")[1] for hit in numbered_reads(planted)) == [
        "gk[1]",
        "k[3]",
        "sim.steer_k[7]",
        "wheel_k[0]",
    ]

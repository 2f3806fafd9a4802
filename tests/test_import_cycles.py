"""No import cycle among the project's modules (ADR 0162): the graph is computed from the
source (tests/import_graph.py), lazy imports inside functions included, and a cycle is
named module by module."""

from __future__ import annotations

import textwrap
from pathlib import Path

from import_graph import cycles, import_graph, tangles

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "replay", "scenarios", "parity", "sandbox", "cli")


def _described(found: list[list[str]]) -> str:
    return "\n".join(" -> ".join(path) for path in found)


def test_no_import_cycle_among_the_projects_modules():
    graph = import_graph(ROOT, PACKAGES, top="skidpad")
    assert len(graph) > 100  # the whole project was read, not an empty folder
    tangled = tangles(graph)
    found = cycles({m: graph[m] for c in tangled for m in c}) if tangled else []
    assert not tangled, f"import cycles:\n{_described(found)}"


def _plant(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for name, source in files.items():
        f = tmp_path / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(textwrap.dedent(source), encoding="utf-8")
    return import_graph(tmp_path, ("pkg",))


def test_a_planted_lazy_cycle_is_found_and_named(tmp_path):
    graph = _plant(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "def late():\n    from .sub import c\n    return c\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/c.py": "def later():\n    import pkg.a\n",
        },
    )
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]


def test_names_resolve_to_modules_and_type_checking_imports_count(tmp_path):
    graph = _plant(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import helper\n",
            "pkg/a.py": "import os\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
            "    from pkg import b\n\n\ndef helper():\n    return os.sep\n",
            "pkg/b.py": "from . import a\nfrom pkg.a import helper as h\nimport pkg.a.nothing\n",
        },
    )
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    graph = _plant(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import helper\n",
            "pkg/a.py": "from pkg import VERSION\n\n\ndef helper():\n    return VERSION\n",
        },
    )
    assert cycles(graph) == [["pkg", "pkg.a", "pkg"]]

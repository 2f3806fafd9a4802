"""The module import graph of the project, computed from the source (ADR 0162).

Every ``import`` and ``from ... import`` statement of a module counts, wherever it is
(top level, inside a function: a lazy import closes a cycle at run time just the same),
those under ``if TYPE_CHECKING:`` included: they never run, but a cycle hidden there is
still two modules that each need the other to be understood (issue 29). ``from a.b import c`` is an
edge to the module ``a.b.c`` when that is a module of the project, else to ``a.b``;
``import a.b.c`` is an edge to the deepest module of the project it names; relative
imports are resolved against the importing module's package. Imports of modules
outside the given packages (the standard library, third parties) are not edges.
"""

from __future__ import annotations

import ast
from pathlib import Path


def module_files(root: Path, packages: tuple[str, ...], top: str = "") -> dict[str, Path]:
    """Module name -> file for every ``.py`` file of ``packages`` under ``root``; the
    package folders may be subpackages of ``top`` (the repository's are of ``skidpad``)."""
    modules: dict[str, Path] = {}
    for package in packages:
        for f in sorted((root / package).rglob("*.py")):
            if "__pycache__" in f.parts:
                continue
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([top, *parts] if top else parts)] = f
    return modules


def _import_nodes(tree: ast.AST):
    """Every import statement, in source order."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _deepest(name: str, modules: dict[str, Path]) -> str | None:
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that ``module`` (the file ``path``) imports."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found = _deepest(alias.name, modules)
                if found:
                    targets.add(found)
            continue
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            parent = ".".join([*base, node.module] if node.module else base)
        else:
            parent = node.module or ""
        for alias in node.names:
            sub = f"{parent}.{alias.name}"
            found = sub if sub in modules else _deepest(parent, modules)
            if found:
                targets.add(found)
    targets.discard(module)
    return targets


def import_graph(root: Path, packages: tuple[str, ...], top: str = "") -> dict[str, set[str]]:
    """Module -> the project modules it imports, for every module of ``packages`` (named
    as subpackages of ``top`` when it is given)."""
    modules = module_files(root, packages, top)
    return {m: imports_of(m, f, modules) for m, f in sorted(modules.items())}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module, each as the
    path ``[a, b, ..., a]`` through imports, components and paths in a fixed order."""
    return [_cycle_through(component, graph) for component in tangles(graph)]


def tangles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (every module of one
    imports every other, directly or not), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0

    def connect(start: str) -> None:  # Tarjan's algorithm, iterative
        nonlocal counter
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(components)


def _cycle_through(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest import path from the component's first module back to itself."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"{component} is not a cycle")

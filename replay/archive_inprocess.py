"""An archived physics version run inside this interpreter, where there are no processes
(Pyodide: the sandbox page's worker and the parity matrix's Pyodide runtimes; ADR 0206).

Today's code is the one package ``skidpad`` (``skidpad.engine``, ``skidpad.replay``, ADR
0204). Every archived tree predates that package: its code is the top-level packages
``engine`` and ``replay`` and imports nothing but them and the standard library (the
archive's sources were read to establish it, and the guard below enforces it). So an
archived version can run here under names today's installed code never uses, and the
isolation is checked rather than assumed, on every run:

- before: no module named ``engine``/``replay`` (or below them) is imported — were one (a
  checkout's root on ``sys.path`` imported as top-level ``engine``), the run is refused;
- during: the archived tree is first on ``sys.path``, and an import hook refuses any
  import whose top-level name is neither ``engine``, ``replay`` nor standard library — in
  particular ``skidpad``: old code cannot reach today's engine (and an import of a module
  already imported, which no hook sees, is found after the run in the tree's modules'
  names: a module, class or function of anything else there refuses the run);
- after: every module the run imported from the tree is removed from ``sys.modules``
  (``sys.path`` and the import hooks are restored), and the run is refused after the fact
  if a module of the tree were left, or if a module of today's ``skidpad`` were replaced.

A tree from after the package rename imports its own modules as ``skidpad.engine...``
(physics 9 on). For it, today's ``skidpad`` modules are set aside for the run (taken out of
``sys.modules``, the objects kept), ``skidpad`` is made a package whose only folder is the
tree (``archive_shim.own_package``), ``skidpad`` joins the tree's roots for the guard and
the checks, and afterwards the tree's ``skidpad`` modules are removed and today's put back:
the check that today's modules are the same objects as before holds for it too.

One run at a time (a lock): the tree's names are process-wide while it runs.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import threading
import types
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError

#: the top-level packages of an archived tree
TREE_ROOTS = ("engine", "replay")
#: ...and of a tree from after the package rename, while it runs
RENAMED_ROOTS = (*TREE_ROOTS, "skidpad")
_LOCK = threading.Lock()
_run_roots: tuple = TREE_ROOTS


class IsolationError(SkidpadError):
    """An archived version cannot run isolated from today's engine in this interpreter."""


def _root(name: str) -> str:
    return name.partition(".")[0]


class _OnlyTheTree(importlib.abc.MetaPathFinder):
    """Refuses, while an archived tree runs, every import outside it and the standard
    library (an old tree that reached for ``skidpad`` would mix two physics)."""

    def __init__(self, shim_name: str) -> None:
        self.shim_name = shim_name
        self.refused: list[str] = []

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        root = _root(fullname)
        if _allowed(root) or root == self.shim_name:
            return None  # the ordinary finders resolve it (the tree is first on sys.path)
        self.refused.append(fullname)
        raise ImportError(f"an archived physics may import only its own tree: {fullname}")


def _tree_modules() -> list[str]:
    return [n for n in sys.modules if _root(n) in _run_roots]


def _today() -> dict[str, int]:
    """Identity of every module of today's package now imported."""
    return {n: id(m) for n, m in sys.modules.items() if _root(n) == "skidpad"}


def run_in_process(tree: Path, recording: Path, poses: bool = False) -> dict:
    """The answer of ``archive_shim.answer`` for ``recording`` (with the pose after every
    host step when ``poses``), computed by the archived tree unpacked at ``tree`` in this
    interpreter, isolated as the module docstring says.
    Raises :class:`IsolationError` when isolation cannot be had or was broken."""
    global _run_roots
    tree = Path(tree).resolve()
    with _LOCK:
        clash = _tree_modules()
        if clash:
            raise IsolationError(
                f"cannot run archived physics here: {clash[0]!r} is already imported "
                "(today's engine under an archived tree's name)"
            )
        shim_name = f"_skidpad_archive_shim_{abs(hash(str(tree)))}"
        guard = _OnlyTheTree(shim_name)
        before = set(sys.modules)
        today = _today()
        saved_path = list(sys.path)
        aside: dict = {}
        spec = importlib.util.spec_from_file_location(shim_name, tree / "archive_shim.py")
        if spec is None or spec.loader is None:
            raise IsolationError(f"no shim in {tree}")
        shim = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(shim)  # standard library only, until it is asked
        renamed = shim.renamed(str(tree))  # today's shim, copied beside every tree
        if renamed:  # today's skidpad aside: the tree's own takes the name for the run
            aside = {n: sys.modules.pop(n) for n in list(sys.modules) if _root(n) == "skidpad"}
            _run_roots = RENAMED_ROOTS
        sys.path.insert(0, str(tree))
        sys.meta_path.insert(0, guard)
        importlib.invalidate_caches()
        try:
            if renamed:
                shim.own_package(str(tree))
            answer = shim.answer(str(recording), poses=poses)
            _check_loaded_from(tree)
        except ImportError as exc:
            if guard.refused:  # the guard's refusal, said as what it is
                raise IsolationError(
                    f"the archived tree tried to import {guard.refused[0]}"
                ) from None
            if renamed:  # its ``skidpad`` is the tree: a name it lacks is not today's either
                raise IsolationError(
                    f"the archived tree tried to import {exc.name}, which it does not hold"
                ) from None
            raise
        finally:
            reached = _reached_outside()
            sys.path[:] = saved_path
            if guard in sys.meta_path:
                sys.meta_path.remove(guard)
            for name in set(sys.modules) - before:
                if _root(name) in TREE_ROOTS or name == shim_name:
                    del sys.modules[name]
            if renamed:
                for name in [n for n in sys.modules if _root(n) == "skidpad"]:
                    del sys.modules[name]  # the tree's: today's were set aside
                sys.modules.update(aside)
            _run_roots = TREE_ROOTS
            importlib.invalidate_caches()
        _check_after(today)
        if guard.refused or reached:
            first = (guard.refused + reached)[0]
            raise IsolationError(f"the archived tree tried to import {first}")
        return answer


def _allowed(root: str) -> bool:
    return root in _run_roots or root in sys.stdlib_module_names


def _reached_outside() -> list[str]:
    """Modules outside the tree and the standard library that a module of the tree holds
    (an import of a module already imported, ``skidpad`` above all, never reaches the
    import hook: it is found here instead, in the tree modules' names)."""
    reached = []
    for name in _tree_modules():
        for value in list(vars(sys.modules[name]).values()):
            if isinstance(value, types.ModuleType):
                where = value.__name__
            else:
                where = getattr(value, "__module__", None)
                if not isinstance(where, str):
                    continue
            if not _allowed(_root(where)) and not where.startswith("_skidpad_archive_shim"):
                reached.append(where)
    return reached


def _check_loaded_from(tree: Path) -> None:
    """Every ``engine``/``replay`` module imported during the run came from ``tree``."""
    for name in _tree_modules():
        where = getattr(sys.modules[name], "__file__", None)
        if where is not None and not Path(where).resolve().is_relative_to(tree):
            raise IsolationError(f"{name} was imported from {where}, not the archived tree")


def _check_after(today: dict[str, int]) -> None:
    left = _tree_modules()
    if left:
        raise IsolationError(f"an archived module outlived its run: {left[0]}")
    now = _today()
    moved = [n for n, ident in today.items() if now.get(n) != ident]
    if moved:
        raise IsolationError(f"today's module {moved[0]} changed during an archived run")

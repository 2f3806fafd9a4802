"""Pyodide under Node.js: the ``node`` runtime (docs/architecture.md §5).

``start`` launches ``node parity/node/runner.mjs`` once; the runner loads the npm package
``pyodide`` (version pinned in ``package-lock.json``) from ``node_modules`` with every URL
pointing there (no CDN), unpacks the project wheel (``parity.wheel.build_wheel``) into
Pyodide's site-packages and then answers worker requests over the line protocol of
``parity.runtimes.process`` until ``stop``. Pyodide therefore boots once per adapter, not
once per recording; ``start`` reports that boot time as ``startup_s`` (process start to
ready), with ``load_s`` the part spent in ``loadPyodide``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from skidpad.parity.runtimes.base import RuntimeUnavailable
from skidpad.parity.runtimes.process import LineProcess, ProcessRuntime, child_env

RUNNER = Path(__file__).resolve().parent.parent / "node" / "runner.mjs"
INSTALL_HINT = "run `npm ci` in the repository root (package-lock.json pins pyodide)"


def find_pyodide(root: Path | None = None) -> Path | None:
    """``node_modules/pyodide`` of the checkout (or of ``root``), if it is installed."""
    if root is None:
        from skidpad.parity.wheel import find_repo_root

        try:
            root = find_repo_root()
        except Exception:
            return None
    folder = root / "node_modules" / "pyodide"
    return folder if (folder / "pyodide.mjs").is_file() else None


class NodeRuntime(ProcessRuntime):
    """Pyodide in one Node.js process."""

    name = "node"

    def __init__(
        self, wheel: Path | None = None, pyodide_dir: Path | None = None, node: str | None = None
    ) -> None:
        super().__init__()
        self.wheel = wheel
        self.pyodide_dir = pyodide_dir
        self.node = node

    def start(self, timeout_s: float = 180.0) -> dict[str, Any]:
        node = self.node or shutil.which("node")
        if node is None:
            raise RuntimeUnavailable("node: `node` is not on PATH; install Node.js 20")
        pyodide_dir = self.pyodide_dir or find_pyodide()
        if pyodide_dir is None or not (pyodide_dir / "pyodide.mjs").is_file():
            raise RuntimeUnavailable(f"node: node_modules/pyodide is missing; {INSTALL_HINT}")
        if self.wheel is None:
            from skidpad.parity.wheel import build_wheel

            self.wheel = build_wheel()
        argv = [node, str(RUNNER), "--pyodide", str(pyodide_dir), "--wheel", str(self.wheel)]
        self._proc = LineProcess(self.name, argv, child_env(), cwd=pyodide_dir)
        ready = self._proc.start(timeout_s)
        self.info = {
            "name": self.name,
            "version": f"pyodide {ready.get('pyodide')}, node {ready.get('node')}",
            "python": ready.get("python"),
            "platform": ready.get("platform"),
            "startup_s": ready["startup_s"],
            "load_s": ready.get("load_s"),
            "source": f"wheel {Path(self.wheel).name}",
        }
        return dict(self.info)

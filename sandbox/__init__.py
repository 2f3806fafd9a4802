"""The browser sandbox: a static web app that drives the engine in Pyodide.

``sandbox/web/`` holds the page (``index.html``), its main-thread script (``app.js``: keys,
canvas, HUD), its modules ``keep.js`` (what the page keeps in IndexedDB) and ``view.js``
(drawing: circuit, car, camera, minimap), and the Web Worker that runs Pyodide and the drive
(``worker.js``, calling :class:`replay.session.PageAPI`). ``skidpad sandbox`` serves them
with Pyodide and the project wheel from 127.0.0.1.
"""

from pathlib import Path

WEB_DIR = Path(__file__).resolve().parent / "web"
WEB_FILES = ("index.html", "app.js", "worker.js", "physics.js", "keep.js", "view.js")

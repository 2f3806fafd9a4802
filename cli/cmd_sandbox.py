"""``skidpad sandbox``: drive a lap in the browser.

Serves the sandbox page, Pyodide and the project wheel from 127.0.0.1 (never another
address, never a CDN) until interrupted; ``--open`` opens the default browser on it.
``--tir FILE`` starts the page on that MF 6.1 tire (both axles of the chosen car): the file
is read and checked against the car first, and a bad one is refused in one line, exit 2,
before anything is served. The page can load another ``.tir`` itself ("Load .tir").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from skidpad.engine.fourwheel.definition import PRESET_NAMES

#: where the page fetches ``--tir``'s file (the URL names it: ``?tir=<its name>``)
TIRE_ROUTE = "/tire.tir"


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not within 0..65535")
    return port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=port_number, default=0, help="port on 127.0.0.1 (default: a free one)"
    )
    parser.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        default="hatchbackFwd",
        metavar="P",
        help=f"the car the page starts with ({', '.join(PRESET_NAMES)})",
    )
    parser.add_argument(
        "--tir",
        metavar="FILE",
        help="start on this MF 6.1 .tir tire (both axles; checked first, exit 2 if refused)",
    )
    parser.add_argument("--open", action="store_true", help="open the default browser on it")


def tire_routes(path: str | None, preset: str) -> dict[str, Path]:
    """The route the page fetches its starting tire from (``/tire.tir``), after the file is
    read as the page's engine will read it and fitted to ``preset`` (a refused file raises
    its one-line reason); none without a file."""
    if path is None:
        return {}
    from skidpad.engine.files import read_regular_file
    from skidpad.engine.fourwheel.tir import MAX_BYTES, TirError
    from skidpad.replay.session import preset_definition, session_tire

    # the reader every .tir goes through: a regular file of bounded size, refused in one line
    raw = read_regular_file(path, MAX_BYTES, TirError, "a .tir file")
    preset_definition(preset, session_tire(Path(path).name, raw))
    return {TIRE_ROUTE: Path(path).resolve()}


def run(args: argparse.Namespace) -> int:
    from skidpad.engine.errors import SkidpadError
    from skidpad.parity.server import LoopbackServer, ServerError
    from skidpad.sandbox import WEB_DIR, WEB_FILES
    from skidpad.sandbox.serve import page_url, physics_routes, project_wheel, pyodide_dir

    tire = tire_routes(args.tir, args.preset)  # (a refused file stops here, before serving)
    wheel = project_wheel()
    try:
        server = LoopbackServer(
            wheel,
            pyodide_dir(),
            WEB_DIR,
            WEB_FILES,
            port=args.port,
            extra=physics_routes() | tire,
        )
        base = server.start()
    except ServerError as exc:
        raise SkidpadError(str(exc)) from None
    except OSError as exc:
        raise SkidpadError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None
    url = page_url(base, wheel.name, args.preset, Path(args.tir).name if args.tir else None)
    print(f"skidpad sandbox: {url}  (Ctrl-C stops)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("skidpad sandbox: stopped", file=sys.stderr)
        return 0
    finally:
        server.stop()

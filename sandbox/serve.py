"""What ``skidpad sandbox`` serves: the page, Pyodide and the project wheel, from 127.0.0.1.

From a checkout, Pyodide is the pinned copy in ``node_modules/pyodide`` and the wheel is
the one the parity harness builds (:func:`parity.wheel.build_wheel`), so the page runs the
very artifacts the runtimes are checked with. From an installed package with no checkout,
Pyodide :data:`PYODIDE_VERSION` is installed once with npm into a user cache
(``$XDG_CACHE_HOME/skidpad`` or ``~/.cache/skidpad``), and the wheel is assembled from the
installed packages (a pure-Python wheel is a zip of them plus its metadata). Nothing comes
from a CDN: the page loads only what the loopback server's allow-list holds.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import urllib.parse
import zipfile
from pathlib import Path

from skidpad.engine.errors import SkidpadError
from skidpad.replay import output

#: the Pyodide release the project pins (package.json / package-lock.json; a test ties them)
PYODIDE_VERSION = "314.0.8"
PACKAGES = ("engine", "replay", "scenarios", "parity", "sandbox", "cli")
_SKIP = ("__pycache__",)
METADATA = "Metadata-Version: 2.1\nName: skidpad\nVersion: {version}\n"
WHEEL = "Wheel-Version: 1.0\nGenerator: skidpad sandbox\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


class SandboxError(SkidpadError):
    """The sandbox cannot be served; the message says what is missing and how to get it."""


def page_url(base: str, wheel_name: str, preset: str, tir: str | None = None) -> str:
    """The sandbox page under the server's ``base`` URL, loading ``wheel_name`` and ``preset``
    (and, with ``tir``, the tire file the server serves as ``tire.tir``, under that name)."""
    query = {"wheel": wheel_name, "preset": preset} | ({"tir": tir} if tir else {})
    return f"{base}index.html?{urllib.parse.urlencode(query)}"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skidpad"


def checkout_root() -> Path | None:
    """The repository this code runs from, if it runs from one (with node_modules)."""
    here = Path(__file__).resolve().parent.parent
    pyproject = here / "pyproject.toml"
    if pyproject.is_file() and 'name = "skidpad"' in pyproject.read_text("utf-8"):
        return here
    return None


def pyodide_dir() -> Path:
    """The Pyodide distribution to serve: the checkout's, else the user cache's (installed
    with npm on first use)."""
    root = checkout_root()
    if root is not None and (root / "node_modules" / "pyodide" / "pyodide.mjs").is_file():
        return root / "node_modules" / "pyodide"
    target = cache_dir() / f"pyodide-{PYODIDE_VERSION}"
    dist = target / "node_modules" / "pyodide"
    if (dist / "pyodide.mjs").is_file():
        return dist
    npm = shutil.which("npm")
    if npm is None:
        raise SandboxError(
            f"Pyodide {PYODIDE_VERSION} is needed once and npm is not installed: install "
            "Node.js and npm, then run skidpad sandbox again"
        )
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(target),
            f"pyodide@{PYODIDE_VERSION}",
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not (dist / "pyodide.mjs").is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SandboxError(f"npm could not install pyodide@{PYODIDE_VERSION} (offline?): {last}")
    return dist


def project_wheel() -> Path:
    """The project wheel the page unpacks into Pyodide: the package without the archive of
    earlier physics versions, which the page does not download at start (ADR 0205)."""
    root = checkout_root()
    if root is not None:
        from skidpad.parity.wheel import build_wheel

        return page_wheel(build_wheel(root / "build" / "wheel", root))
    return page_wheel(wheel_from_installed(cache_dir() / "wheel"))


#: what the page's wheel leaves out: the physics archive (hundreds of kB the page needs only
#: to replay a recording of an earlier physics)
PAGE_OMITS = ("skidpad/replay/physics/archive.zip",)


def page_wheel(wheel: Path) -> Path:
    """``wheel`` without :data:`PAGE_OMITS`, cached beside it (same name, own folder)."""
    target = wheel.parent / "page" / wheel.name
    if target.is_file() and target.stat().st_mtime_ns >= wheel.stat().st_mtime_ns:
        return target
    data = io.BytesIO()
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename not in PAGE_OMITS:
                dst.writestr(info, src.read(info.filename))
    target.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(target, data.getvalue())
    return target


def wheel_from_installed(out_dir: Path) -> Path:
    """A pure-Python wheel of the ``skidpad`` package this process imports (a checkout or an
    installed copy), cached by the hash of its files; their names inside the wheel start with
    ``skidpad/``, as in the real wheel."""
    from skidpad import engine

    home = Path(engine.__file__).resolve().parent.parent  # the folder holding the packages
    own = home / "skidpad" if (home / "skidpad" / "__init__.py").is_file() else home
    members = {
        f"skidpad/{p.name}": p for p in sorted(own.glob("*.py")) if p.is_file()
    }
    for package in PACKAGES:
        for p in sorted((home / package).rglob("*")):
            if p.is_file() and not any(part in _SKIP for part in p.parts) and p.suffix != ".pyc":
                members[f"skidpad/{p.relative_to(home).as_posix()}"] = p
    digest = hashlib.sha256()
    for name, p in sorted(members.items()):
        digest.update(name.encode() + b"\0" + p.read_bytes())
    version = engine.__version__
    wheel = out_dir / digest.hexdigest()[:16] / f"skidpad-{version}-py3-none-any.whl"
    if wheel.is_file():
        return wheel
    wheel.parent.mkdir(parents=True, exist_ok=True)
    info = f"skidpad-{version}.dist-info"
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, p in sorted(members.items()):
            zf.write(p, name)
        zf.writestr(f"{info}/METADATA", METADATA.format(version=version))
        zf.writestr(f"{info}/WHEEL", WHEEL)
        zf.writestr(f"{info}/RECORD", "")
    output.write_bytes(wheel, data.getvalue())
    return wheel


def physics_routes(out_dir: Path | None = None) -> dict[str, Path]:
    """``/physics/v<N>.zip`` -> one archived version's zip (:func:`replay.archive.version_zip`),
    for every version the shipped archive holds: what the page fetches when a loaded recording
    needs that physics (ADR 0206). Written once into ``out_dir`` (a folder named by the
    archive's hash), so a rebuilt archive never serves stale trees."""
    from skidpad.replay import archive

    entries = archive.shipped_entries()
    digest = hashlib.sha256(entries["index.json"]).hexdigest()[:16]
    root = checkout_root()
    if out_dir is None:
        out_dir = root / "build" / "physics" if root is not None else cache_dir() / "physics-zips"
    base = out_dir
    folder = base / digest
    routes = {}
    for number in sorted(int(n) for n in json.loads(entries["index.json"])["versions"]):
        target = folder / f"v{number}.zip"
        if not target.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            output.write_bytes(target, archive.version_zip(number, entries))
        routes[f"/physics/v{number}.zip"] = target
    return routes

"""The sandbox page's real-time headroom per browser and preset, its load time, and the
speed of its verdict replay against the bare substep loop (docs/sandbox.md).

    python benchmarks/sandbox_headroom.py [--browsers chromium,firefox] [--seconds 8] [--json]

The verdict replay: the page's "Load recording" of ``recordings/openWheeler-sandbox.json``
(a 65.5 s lap) timed end to end, from handing the file to the input until the verdict is
shown, against ``window.skidpad.bench`` (the same inputs replayed with no lap timer, no
ghost, one checkpoint) in the same worker.

For each browser: load the page (time to ``window.skidpad.ready``, i.e. Pyodide booted,
the wheel unpacked and the first drive started), then for each preset drive with the
throttle held for ``--seconds`` and read ``window.skidpad.headroom()``: simulated seconds
per second of the worker's Python time over the last ~2 s. A number, not a test: the
machine is shared, so run it more than once and take the best.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def measure(browser_name: str, presets: list[str], seconds: float) -> dict:
    from playwright.sync_api import sync_playwright
    from skidpad.parity.runtimes import browser
    from skidpad.parity.server import LoopbackServer
    from skidpad.sandbox import WEB_DIR, WEB_FILES
    from skidpad.sandbox.serve import page_url, project_wheel, pyodide_dir

    wheel = project_wheel()
    profile = tempfile.mkdtemp(prefix="skidpad-headroom-")
    out: dict = {"browser": browser_name, "presets": {}}
    server = LoopbackServer(wheel, pyodide_dir(), WEB_DIR, WEB_FILES)
    with server, sync_playwright() as pw:
        context = browser.runtime_class(browser_name).launch_context(pw, profile)
        page = context.pages[0] if context.pages else context.new_page()
        page.set_default_timeout(180_000)
        t0 = time.monotonic()
        page.goto(page_url(server.url, wheel.name, presets[0]))
        info = page.evaluate("window.skidpad.ready")
        out["load_s"] = time.monotonic() - t0
        out["first_frame_s"] = info["first_frame_ms"] / 1000.0
        lap = ROOT / "recordings" / "openWheeler-sandbox.json"
        text = lap.read_text(encoding="utf-8")
        bare = page.evaluate("(t) => window.skidpad.bench(t)", text)
        t0 = time.monotonic()
        page.set_input_files("#load", str(lap))
        page.wait_for_function(
            "window.skidpad.lastVerdict() && window.skidpad.lastVerdict().exit === 0"
        )
        end_to_end = time.monotonic() - t0
        out["replay"] = {
            "sim_s": bare["sim_s"],
            "bare_s": bare["wall_s"],
            "verify_python_s": page.evaluate("window.skidpad.lastVerdict().seconds"),
            "end_to_end_s": end_to_end,
        }
        for preset in presets:
            page.evaluate("(p) => window.skidpad.start({preset: p})", preset)
            page.focus("#view")
            page.keyboard.down("ArrowUp")
            time.sleep(seconds)
            out["presets"][preset] = page.evaluate("window.skidpad.headroom()")
            page.keyboard.up("ArrowUp")
        context.close()
    shutil.rmtree(profile, ignore_errors=True)
    return out


def main() -> int:
    from skidpad.engine.fourwheel.definition import PRESET_NAMES

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--browsers", default="chromium,firefox")
    parser.add_argument("--presets", default=",".join(PRESET_NAMES))
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    presets = args.presets.split(",")
    results = [measure(b, presets, args.seconds) for b in args.browsers.split(",")]
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print("| preset | " + " | ".join(r["browser"] for r in results) + " |")
    print("|---|" + "---|" * len(results))
    for p in presets:
        cells = " | ".join(f"{r['presets'][p]:.1f}x" for r in results)
        print(f"| {p} | {cells} |")
    print("| load to first frame | " + " | ".join(f"{r['load_s']:.1f} s" for r in results) + " |")
    for r in results:
        rp = r["replay"]
        print(
            f"{r['browser']}: {rp['sim_s']:.1f} s lap verified end to end in "
            f"{rp['end_to_end_s']:.2f} s ({rp['sim_s'] / rp['end_to_end_s']:.1f}x real time; "
            f"{rp['verify_python_s']:.2f} s in Python); bare substep loop {rp['bare_s']:.2f} s "
            f"({rp['sim_s'] / rp['bare_s']:.1f}x); end to end at "
            f"{rp['bare_s'] / rp['end_to_end_s']:.0%} of the bare loop's speed"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

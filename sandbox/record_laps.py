"""Record one sandbox lap per preset through the page, in Chromium, with real key events.

    python -m sandbox.record_laps [-o recordings/] [--presets kart,sportsRwd]

Each preset is driven by :func:`sandbox.automation.drive_until_a_valid_lap`, the drive is
paused, and the recording is taken through the page's download button and saved as
``<preset>-sandbox.json`` (written atomically). Every file is verified by replay here
before it is kept. These are the committed sandbox laps; ``skidpad bless`` then records
their golden hashes.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from skidpad.engine.fourwheel.definition import PRESET_NAMES


def record(presets: list[str], out_dir: Path) -> int:
    from playwright.sync_api import sync_playwright
    from skidpad.parity.runtimes.chromium import ChromiumRuntime
    from skidpad.parity.server import LoopbackServer
    from skidpad.replay import recording
    from skidpad.replay.laps import replay_laps
    from skidpad.sandbox import WEB_DIR, WEB_FILES
    from skidpad.sandbox.automation import drive_until_a_valid_lap
    from skidpad.sandbox.serve import page_url, project_wheel, pyodide_dir

    wheel = project_wheel()
    profile = tempfile.mkdtemp(prefix="skidpad-record-laps-")
    with (
        LoopbackServer(wheel, pyodide_dir(), WEB_DIR, WEB_FILES) as server,
        sync_playwright() as pw,
    ):
        context = ChromiumRuntime.launch_context(pw, profile, accept_downloads=True)
        page = context.pages[0] if context.pages else context.new_page()
        page.set_default_timeout(120_000)
        page.goto(page_url(server.url, wheel.name, presets[0]))
        page.evaluate("window.skidpad.ready")
        for preset in presets:
            page.evaluate("(p) => window.skidpad.start({preset: p})", preset)
            page.focus("#view")
            t0 = time.monotonic()
            laps = drive_until_a_valid_lap(page, preset)
            page.keyboard.press("p")
            time.sleep(0.3)
            with page.expect_download() as info:
                page.click("#download")
            text = Path(info.value.path()).read_text(encoding="utf-8")
            page.keyboard.press("p")
            rec = recording.loads(text)
            replayed, result = replay_laps(rec)
            if replayed != list(rec.laps) or result.final_hash != rec.final_hash:
                print(f"{preset}: the replay does not reproduce the page's claims", file=sys.stderr)
                return 1
            target = out_dir / f"{preset}-sandbox.json"
            recording.save(rec, target)
            best = min(lap["time_s"] for lap in rec.laps if lap["valid"])
            print(
                f"{target}: {laps} lap(s), best valid {best:.3f} s, {rec.steps} steps, "
                f"driven in {time.monotonic() - t0:.0f} s",
                flush=True,
            )
        context.close()
    shutil.rmtree(profile, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.record_laps", description=__doc__)
    parser.add_argument("-o", "--output", type=Path, default=Path("recordings"))
    parser.add_argument("--presets", default=",".join(PRESET_NAMES))
    args = parser.parse_args(argv)
    presets = [p for p in args.presets.split(",") if p]
    unknown = [p for p in presets if p not in PRESET_NAMES]
    if unknown or not presets:
        parser.error(f"unknown preset {unknown[0]!r}" if unknown else "no preset")
    if not args.output.is_dir():
        parser.error(f"{args.output}: not a directory")
    return record(presets, args.output)


if __name__ == "__main__":
    sys.exit(main())

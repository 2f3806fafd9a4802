"""The sandbox page end to end, in real browsers, driven with real key events.

Each browser starts once for this module. A closed-loop keyboard driver
(:mod:`sandbox.automation`) reads ``window.skidpad.car()`` and presses and releases real keys
until the page has timed a full valid lap; the recording is then taken through
the page's download button and replayed in CPython. Key events land on host steps with
real-time jitter, so nothing here depends on exact timing: the assertions are what must hold
whatever the jitter — the lap counts, and the replay reproduces the page's laps and final
hash exactly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from skidpad.replay.recording import loads
from skidpad.replay.session import replay_laps
from skidpad.sandbox.automation import NoLap, drive_until_a_valid_lap

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PRESET = "openWheeler"  # the quickest lap of the six
LAP_TIMEOUT_S = 300.0
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "build" / "sandbox"


@pytest.fixture(scope="module")
def sandbox_url():
    from skidpad.parity.server import LoopbackServer
    from skidpad.sandbox import WEB_DIR, WEB_FILES
    from skidpad.sandbox.serve import page_url, project_wheel, pyodide_dir

    wheel = project_wheel()
    with LoopbackServer(wheel, pyodide_dir(), WEB_DIR, WEB_FILES) as server:
        yield page_url(server.url, wheel.name, PRESET), server


def launch(pw, name: str, profile: str):
    from skidpad.parity.runtimes import browser

    runtime = browser.runtime_class(name)
    if runtime.binary() is None:
        if IN_CI:
            pytest.fail(f"{name} is not installed (ci/install_browsers.sh installs it)")
        pytest.skip(f"{name} is not installed: sudo ci/install_browsers.sh")
    viewport = {"width": 1200, "height": 800}
    return runtime.launch_context(pw, profile, viewport=viewport, accept_downloads=True)


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def page(request, sandbox_url):
    from playwright.sync_api import sync_playwright

    url, server = sandbox_url
    profile = tempfile.mkdtemp(prefix=f"skidpad-sandbox-{request.param}-")
    with sync_playwright() as pw:
        context = launch(pw, request.param, profile)
        try:
            pg = context.pages[0] if context.pages else context.new_page()
            pg.set_default_timeout(120_000)
            requests: list[str] = []
            pg.on("request", lambda r: requests.append(r.url))
            t0 = time.monotonic()
            pg.goto(url)
            pg.evaluate("window.skidpad.ready")
            pg.load_ms = (time.monotonic() - t0) * 1000.0
            pg.browser_name = request.param
            pg.requests = requests
            pg.focus("#view")
            yield pg
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def download(page) -> str:
    """The recording, through the page's download button. Chromium reports the download to
    Playwright; Firefox over WebDriver BiDi does not, so there the test reads the text the
    button handed to the browser."""
    if page.browser_name == "chromium":
        with page.expect_download() as info:
            page.click("#download")
        return Path(info.value.path()).read_text(encoding="utf-8")
    page.click("#download")
    page.wait_for_function("window.skidpad.lastDownload() !== null")
    return page.evaluate("window.skidpad.lastDownload()")


@pytest.fixture(scope="module")
def driven(page):
    """One lap driven on the page, then paused; the downloaded recording and what the page
    showed."""
    try:
        drive_until_a_valid_lap(page, PRESET, LAP_TIMEOUT_S)
    except NoLap as exc:
        pytest.fail(f"{page.browser_name}: {exc}")
    page.keyboard.press("p")
    time.sleep(0.3)  # the worker finishes the slice it was in
    shown = {
        "laps": page.evaluate("window.skidpad.laps()"),
        "hash": page.evaluate("window.skidpad.stateHash()"),
        "headroom": page.evaluate("window.skidpad.headroom()"),
    }
    text = download(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"sandbox-{page.browser_name}.png"))
    return text, shown


def test_a_keyboard_lap_counts_and_replays_to_the_pages_laps_and_hash(driven, page) -> None:
    text, shown = driven
    valid = [lap for lap in shown["laps"] if lap["valid"]]
    assert valid, [lap["reason"] for lap in shown["laps"]]
    lap = valid[0]
    rec = loads(text)
    assert rec.preset == PRESET and rec.track == "sandbox"
    laps, result = replay_laps(rec)
    assert laps == shown["laps"]
    assert result.final_hash == shown["hash"]
    print(
        f"{page.browser_name}: lap {lap['time_s']:.3f} s, load {page.load_ms:.0f} ms, "
        f"headroom {shown['headroom']:.1f}x real time"
    )


def verify_text(text: str, tmp_path: Path, name: str) -> tuple[int, dict]:
    """``skidpad verify --json`` of the recording ``text``, in a CPython subprocess, run from
    a directory with no hashes/ in sight."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "skidpad", "verify", str(path), "--json"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else {})


def test_skidpad_verify_accepts_the_download_and_rejects_tampered_copies(
    driven, page, tmp_path
) -> None:
    text, shown = driven
    rc, report = verify_text(text, tmp_path, "lap.json")
    assert rc == 0, report
    (row,) = report["recordings"]
    assert row["laps"] == shown["laps"] and row["final_hash"] == shown["hash"]
    if page.browser_name != "chromium":
        return  # the tampered copies test verify, not the browser: once is enough
    doc = json.loads(text)
    # one frame's input changed: a throttle frame set to half throttle moves the final hash
    k = next(i for i, f in enumerate(doc["frames"]) if f[0] > 1 and f[1] not in (0.5,))
    changed = json.loads(text)
    changed["frames"][k][1] = 0.5
    assert replay_laps(loads(json.dumps(changed)))[1].final_hash != shown["hash"]
    later = json.loads(text)
    later["claims"]["laps"][0]["time_s"] += 0.001
    bare = json.loads(text)
    bare["claims"].update(final_hash=None, checkpoints=[], laps=None)
    for name, tampered, needle in [
        ("input.json", changed, "/claims/final_hash"),
        ("lap-time.json", later, "/claims/laps/0"),
        ("bare.json", bare, "nothing claimed"),
    ]:
        rc, report = verify_text(json.dumps(tampered), tmp_path, name)
        assert rc == 1, name
        (row,) = report["recordings"]
        assert needle in json.dumps(row), (name, row)


def test_the_page_makes_no_request_beyond_loopback(driven, page) -> None:
    outside = [
        u for u in page.requests if not u.startswith(("http://127.0.0.1:", "blob:", "data:"))
    ]
    assert not outside, outside
    assert any("/pyodide/" in u for u in page.requests) and any(
        "/wheel/" in u for u in page.requests
    )


def test_the_recording_download_is_what_the_api_returns(driven, page) -> None:
    text, _ = driven
    assert json.loads(page.evaluate("window.skidpad.recording()")) == json.loads(text)


def test_a_loaded_recording_becomes_the_ghost_and_a_foreign_one_is_refused_in_one_line(
    driven, page, tmp_path
) -> None:
    """The page's "Load recording" input, as a user picks a file: the lap just driven
    replays in the page to its own claim; a CommonRoad recording is refused with one line
    naming what it is (not a Python traceback)."""
    text, _ = driven
    lap = tmp_path / "lap.json"
    lap.write_text(text, encoding="utf-8")
    box = page.locator("#replay-result")
    page.set_input_files("#load", str(lap))
    page.wait_for_function(
        "document.getElementById('replay-result').textContent.includes('final hash')"
    )
    shown = box.inner_text()
    assert "shown as the ghost" in shown and "equals the file's claim" in shown, shown
    page.set_input_files("#load", str(ROOT / "recordings" / "commonroad-ks-v2.json"))
    page.wait_for_function(
        "document.getElementById('replay-result').textContent.includes('skidpad verify')"
    )
    refused = box.inner_text()
    assert "this is a CommonRoad recording" in refused, refused
    assert "Traceback" not in refused and len(refused.strip().splitlines()) == 1, refused


# ----------------------------------------------------------------------------- WebKit

ASYNC_JS = """
const done = arguments[arguments.length - 1];
const go = () => Promise.resolve(%s).then((v) => done({ok: v}), (e) => done({error: String(e)}));
// the page's module script may not have run yet when the driver first gets here
const wait = () => (window.skidpad ? go() : setTimeout(wait, 50));
wait();
"""


def webkit_call(driver, expression: str):
    out = driver.execute_async_script(ASYNC_JS % expression)
    if "error" in out:
        raise AssertionError(f"webkit: {expression}: {out['error']}")
    return out["ok"]


@pytest.fixture(scope="module")
def webkit(sandbox_url):
    from skidpad.parity.runtimes import webkit as wk

    if shutil.which("WebKitWebDriver") is None or shutil.which("Xvfb") is None:
        if IN_CI:
            pytest.fail("WebKitWebDriver or Xvfb is not installed (ci/install_browsers.sh)")
        pytest.skip("WebKitWebDriver/Xvfb not installed: sudo ci/install_browsers.sh")
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    url, _server = sandbox_url
    xvfb = wk.Xvfb()
    display = xvfb.start()
    options = Options()
    options.binary_location = wk.WebKitRuntime.binary()
    for arg in wk.WEBKIT_ARGS:
        options.add_argument(arg)
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    env["DISPLAY"] = display
    service = Service(executable_path=shutil.which("WebKitWebDriver"), env=env)
    driver = webdriver.WebKitGTK(options=options, service=service)
    try:
        driver.set_script_timeout(180)
        driver.get(url)
        webkit_call(driver, "window.skidpad.ready")
        yield driver
    finally:
        driver.quit()
        xvfb.stop()


def test_webkit_drives_ten_seconds_and_the_recording_verifies(webkit, tmp_path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys as SeleniumKeys

    canvas = webkit.find_element(By.ID, "view")
    ActionChains(webkit).click(canvas).key_down(SeleniumKeys.ARROW_UP).perform()
    time.sleep(7)
    ActionChains(webkit).key_down(SeleniumKeys.ARROW_LEFT).perform()
    time.sleep(0.5)
    ActionChains(webkit).key_up(SeleniumKeys.ARROW_LEFT).perform()
    time.sleep(2.5)
    ActionChains(webkit).key_up(SeleniumKeys.ARROW_UP).send_keys("p").perform()
    time.sleep(0.3)
    car = webkit.execute_script("return window.skidpad.car();")
    assert car["speed"] > 5.0, car  # the keys reached the engine: the car drove off
    text = webkit_call(webkit, "window.skidpad.recording()")
    shown = webkit_call(webkit, "window.skidpad.stateHash()")
    rec = loads(text)
    assert any(values[0] > 0.0 for _count, values in rec.frames), "no throttle was recorded"
    rc, report = verify_text(text, tmp_path, "webkit.json")
    assert rc == 0, report
    (row,) = report["recordings"]
    assert row["final_hash"] == shown
    assert row["laps"] == webkit.execute_script("return window.skidpad.laps();")

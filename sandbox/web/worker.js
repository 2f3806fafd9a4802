// Skidpad sandbox: the Web Worker that runs Pyodide and the drive.
//
// The page's thread only reads the keyboard and draws; the engine runs here, paced against
// the clock: host steps fall due at the drive's host rate, and each slice runs the steps
// that are due (at most MAX_BATCH), then yields so key messages are seen between slices.
// When the worker falls more than MAX_DEBT steps behind, the clock is moved instead of
// running a burst: simulated time slows (the page shows it), and every host step still gets
// exactly one key state, so the recording holds every input once, as applied.
//
//   page -> worker  {type: "boot", indexURL, wheelURL, wheelName}
//                   {type: "start", id, options}     a new drive from the grid
//                   {type: "keys", held, taps, gearUp, gearDown}
//                   {type: "pause", paused}
//                   {type: "call", id, what, arg}    recording | stateHash | replay
//   worker -> page  {type: "ready", info} | {type: "failed", error}
//                   {type: "view", view, headroom, realtime}
//                   {type: "reply", id, ok} | {type: "reply", id, error}

const MAX_BATCH = 10;
const MAX_DEBT = 25;
const KEYS = ["throttle", "brake", "left", "right", "handbrake"];

const send = (msg) => self.postMessage(msg);
// A Python exception reaches the page as its whole traceback; the page shows its last line,
// and for Skidpad's own errors (whose messages name what is wrong) the message alone.
const describe = (err) => {
  const text = ((err && (err.message || String(err))) || "unknown error").trim();
  if (!(err && err.type)) return text;
  const last = text.split("\n").pop();
  const own = /^(?:skidpad\.)?(engine|replay)\.[\w.]*Error: /.exec(last);
  return own ? last.slice(own[0].length) : last;
};

const GLUE = `
import json as _json
from skidpad.replay.session import PageAPI as _PageAPI
_skidpad = _PageAPI()
`;

let py = null; // the PageAPI object
let hostHz = 100;
let running = false;
let paused = false;
let clockStart = 0; // performance.now() at which step `stepsAtClock` was due
let stepsAtClock = 0;
let steps = 0;
const held = Object.fromEntries(KEYS.map((k) => [k, false]));
const tapped = Object.fromEntries(KEYS.map((k) => [k, false]));
let gearUp = 0;
let gearDown = 0;
// headroom: simulated seconds per second of Python time, over the last ~2 s of slices
const window_ = [];
let slowedAt = -1e9;

async function boot({ indexURL, wheelURL, wheelName }) {
  const t0 = performance.now();
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL, packageBaseUrl: indexURL });
  const response = await fetch(wheelURL);
  if (!response.ok) throw new Error(`wheel ${wheelName}: HTTP ${response.status}`);
  pyodide.unpackArchive(new Uint8Array(await response.arrayBuffer()), "wheel");
  pyodide.runPython(GLUE);
  py = pyodide.globals.get("_skidpad");
  return {
    pyodide: pyodide.version,
    wheel: wheelName,
    boot_ms: performance.now() - t0,
    catalogue: JSON.parse(py.catalogue()),
  };
}

function restartClock() {
  clockStart = performance.now();
  stepsAtClock = steps;
}

function start(options) {
  running = false;
  const view = JSON.parse(py.start(JSON.stringify(options)));
  const setup = JSON.parse(py.setup());
  hostHz = setup.host_hz;
  steps = 0;
  window_.length = 0;
  KEYS.forEach((k) => (tapped[k] = false));
  gearUp = gearDown = 0;
  restartClock();
  running = true;
  return { view, setup };
}

function headroom() {
  let sim = 0;
  let cpu = 0;
  for (const [n, ms] of window_) {
    sim += n / hostHz;
    cpu += ms / 1000;
  }
  return cpu > 0 ? sim / cpu : 0;
}

function slice() {
  if (!running || paused) {
    setTimeout(slice, 20);
    return;
  }
  const now = performance.now();
  let due = Math.floor(((now - clockStart) * hostHz) / 1000) - (steps - stepsAtClock);
  if (due > MAX_DEBT) {
    // behind the clock: let simulated time slow down rather than run a burst
    clockStart = now;
    stepsAtClock = steps;
    due = 1;
    slowedAt = now;
  }
  if (due <= 0) {
    const next = clockStart + ((steps - stepsAtClock + 1) * 1000) / hostHz;
    setTimeout(slice, Math.max(0, next - now));
    return;
  }
  const n = Math.min(due, MAX_BATCH);
  const keys = { gear_up: gearUp, gear_down: gearDown };
  for (const k of KEYS) {
    keys[k] = held[k] || tapped[k];
    tapped[k] = false;
  }
  gearUp = gearDown = 0;
  const t0 = performance.now();
  let view;
  try {
    view = JSON.parse(py.steps(n, JSON.stringify(keys)));
  } catch (err) {
    running = false;
    send({ type: "failed", error: describe(err) });
    return;
  }
  const ms = performance.now() - t0;
  steps += n;
  window_.push([n, ms]);
  while (window_.length > 1 && window_.reduce((a, w) => a + w[0], 0) > 2 * hostHz) window_.shift();
  send({ type: "view", view, headroom: headroom(), slowed: now - slowedAt < 1000 });
  setTimeout(slice, 0);
}

function call(what, arg) {
  if (what === "recording") return py.recording();
  if (what === "stateHash") return py.state_hash();
  if (what === "replay") {
    const out = py.replay(arg); // the drive stands still meanwhile: no catch-up afterwards
    restartClock();
    return out;
  }
  throw new Error(`unknown call ${what}`);
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === "boot") {
      send({ type: "ready", info: await boot(msg) });
      slice();
    } else if (msg.type === "start") {
      send({ type: "reply", id: msg.id, ok: start(msg.options) });
    } else if (msg.type === "keys") {
      for (const k of KEYS) {
        held[k] = !!msg.held[k];
        if (msg.taps[k]) tapped[k] = true;
      }
      gearUp += msg.gearUp || 0;
      gearDown += msg.gearDown || 0;
    } else if (msg.type === "pause") {
      paused = !!msg.paused;
      if (!paused) restartClock();
    } else if (msg.type === "call") {
      send({ type: "reply", id: msg.id, ok: call(msg.what, msg.arg) });
    }
  } catch (err) {
    if (msg.type === "boot") send({ type: "failed", error: describe(err) });
    else send({ type: "reply", id: msg.id, error: describe(err) });
  }
};

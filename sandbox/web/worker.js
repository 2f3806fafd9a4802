// Skidpad sandbox: the Web Worker that runs Pyodide and the drive.
//
// The page's thread only reads the input devices and draws; the engine runs here. In real
// time (the default), the drive is paced against the clock: host steps fall due at the
// drive's host rate, and each slice runs the steps that are due (at most MAX_BATCH), then
// yields so input messages are seen between slices. When the worker falls more than
// MAX_DEBT steps behind, the clock is moved instead of running a burst: simulated time slows
// (the page says so), and every host step still gets exactly one input state, so the
// recording holds every input once, as applied. A pause (the P key, a hidden tab, a page
// that lost focus) stops the drive, and with it the lap timer, which counts simulated time.
//
// In stepping mode (ADR 0222; only for a page opened by automation), the clock plays no
// part: the drive advances only when the page asks for host steps ({type: "advance"}), and
// the recording says so ("driven": "stepped").
//
// Verifying a loaded recording is one call into Python (PageAPI.verify: the code of
// `skidpad verify`): no round trip to the page per host step; its progress is posted.
//
//   page -> worker  {type: "boot", indexURL, wheelURL, wheelName, stepping}
//                   {type: "start", id, options}     a new drive from the grid (options.tire:
//                                                      {name, bytes} of a .tir file, or null)
//                   {type: "input", held, taps, gearUp, gearDown, amounts}
//                   {type: "pause", paused}
//                   {type: "advance", id, n}          stepping mode: n host steps; the reply
//                                                      holds the view and the rates
//                   {type: "call", id, what, arg}    recording | stateHash | lapGhost | verify | bench
//   worker -> page  {type: "loading", stage, loaded, total} | {type: "ready", info}
//                   {type: "failed", error}
//                   {type: "view", view, headroom, simRate, behind}
//                   {type: "verifying", n, total, stage}  (stage: fetching archived physics)
//                   {type: "reply", id, ok} | {type: "reply", id, error}

import { verifyWithArchive } from "./physics.js";

const MAX_BATCH = 10;
const MAX_DEBT = 25;
const KEYS = ["throttle", "brake", "left", "right", "handbrake"];
const AMOUNTS = ["throttle_amount", "brake_amount", "steer_amount"];

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
let stepping = false;
let clockStart = 0; // performance.now() at which step `stepsAtClock` was due
let stepsAtClock = 0;
let steps = 0;
const held = Object.fromEntries(KEYS.map((k) => [k, false]));
const tapped = Object.fromEntries(KEYS.map((k) => [k, false]));
let amounts = {};
let gearUp = 0;
let gearDown = 0;
// headroom: simulated seconds per second spent in Python, over the last ~2 s of slices;
// simRate: simulated seconds per wall-clock second over the same slices
const window_ = [];
let behindAt = -1e9;

async function fetchWithProgress(url, stage) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${stage}: HTTP ${response.status}`);
  const total = Number(response.headers.get("Content-Length")) || 0;
  if (!response.body || !response.body.getReader) {
    return new Uint8Array(await response.arrayBuffer());
  }
  const reader = response.body.getReader();
  const parts = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    send({ type: "loading", stage, loaded, total });
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function boot({ indexURL, wheelURL, wheelName }) {
  const t0 = performance.now();
  send({ type: "loading", stage: "fetching Pyodide (pyodide.mjs)" });
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  send({
    type: "loading",
    stage: "fetching and starting the Python runtime (pyodide.asm.wasm, python_stdlib.zip)",
  });
  const pyodide = await loadPyodide({ indexURL, packageBaseUrl: indexURL });
  const wheel = await fetchWithProgress(wheelURL, `fetching the engine (${wheelName})`);
  send({ type: "loading", stage: "unpacking the engine and building the circuit" });
  pyodide.unpackArchive(wheel, "wheel");
  pyodide.runPython(GLUE);
  py = pyodide.globals.get("_skidpad");
  return {
    pyodide: pyodide.version,
    wheel: wheelName,
    boot_ms: performance.now() - t0,
    catalogue: JSON.parse(py.catalogue()),
    stepping,
  };
}

function restartClock() {
  clockStart = performance.now();
  stepsAtClock = steps;
}

function start(options) {
  // a person's own tire ({name, bytes} of a .tir file) goes over as bytes, beside the JSON;
  // if Python refuses it, the drive before goes on (running is set again only on success)
  const { tire, ...rest } = options;
  const view = JSON.parse(
    py.start(
      JSON.stringify({ ...rest, driven: stepping ? "stepped" : null }),
      // (undefined, not null: Pyodide gives Python None for undefined, JsNull for null)
      tire ? tire.name : undefined,
      tire ? tire.bytes : undefined,
    ),
  );
  running = false;
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

function rates() {
  let sim = 0;
  let cpu = 0;
  for (const [n, ms] of window_) {
    sim += n / hostHz;
    cpu += ms / 1000;
  }
  const wall = window_.length > 1 ? (window_[window_.length - 1][2] - window_[0][2]) / 1000 : 0;
  const simFirst = window_.length ? window_[0][0] / hostHz : 0;
  return { headroom: cpu > 0 ? sim / cpu : 0, simRate: wall > 0 ? (sim - simFirst) / wall : 0 };
}

// the input state for the next run of host steps (taps and gear presses apply once)
function takeKeys() {
  const keys = { gear_up: gearUp, gear_down: gearDown };
  for (const k of KEYS) {
    keys[k] = held[k] || tapped[k];
    tapped[k] = false;
  }
  for (const k of AMOUNTS) keys[k] = k in amounts ? amounts[k] : null;
  gearUp = gearDown = 0;
  return keys;
}

function run(n, now) {
  const t0 = performance.now();
  const view = JSON.parse(py.steps(n, JSON.stringify(takeKeys())));
  const ms = performance.now() - t0;
  steps += n;
  window_.push([n, ms, now]);
  while (window_.length > 1 && window_.reduce((a, w) => a + w[0], 0) > 2 * hostHz) window_.shift();
  return view;
}

function slice() {
  if (stepping) return; // the page advances the drive
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
    behindAt = now;
  }
  if (due <= 0) {
    const next = clockStart + ((steps - stepsAtClock + 1) * 1000) / hostHz;
    setTimeout(slice, Math.max(0, next - now));
    return;
  }
  let view;
  try {
    view = run(Math.min(due, MAX_BATCH), now);
  } catch (err) {
    running = false;
    send({ type: "failed", error: describe(err) });
    return;
  }
  send({ type: "view", view, ...rates(), behind: now - behindAt < 1000 });
  setTimeout(slice, 0);
}

function advance(n) {
  if (!stepping) throw new Error("advance: the page is not in stepping mode");
  if (!running) throw new Error("advance: no drive started");
  if (!(Number.isInteger(n) && n >= 0 && n <= 1000)) throw new Error("advance: 0..1000 steps");
  if (paused || n === 0) return null;
  // the view and the rates come back in the reply, in one message: sent as a view message
  // too, the page could draw between the two (under load) and draw the same picture twice
  return { view: run(n, performance.now()), ...rates(), behind: false };
}

async function call(what, arg) {
  if (what === "recording") return py.recording();
  if (what === "stateHash") return py.state_hash();
  if (what === "lapGhost") return py.lap_ghost(arg);
  if (what === "verify") {
    // one call into Python for the whole replay; the drive stands still meanwhile (no
    // catch-up afterwards)
    const progress = (n, total) => send({ type: "verifying", n, total });
    try {
      return await verifyWithArchive(py, arg.name, arg.bytes, progress, send, arg.lap ?? null);
    } finally {
      restartClock();
    }
  }
  if (what === "bench") {
    try {
      return py.bench(arg.bytes);
    } finally {
      restartClock();
    }
  }
  throw new Error(`unknown call ${what}`);
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === "boot") {
      stepping = !!msg.stepping;
      send({ type: "ready", info: await boot(msg) });
      slice();
    } else if (msg.type === "start") {
      send({ type: "reply", id: msg.id, ok: start(msg.options) });
    } else if (msg.type === "input") {
      for (const k of KEYS) {
        held[k] = !!msg.held[k];
        if (msg.taps[k]) tapped[k] = true;
      }
      amounts = msg.amounts || {};
      gearUp += msg.gearUp || 0;
      gearDown += msg.gearDown || 0;
    } else if (msg.type === "pause") {
      const was = paused;
      paused = !!msg.paused;
      if (was && !paused) restartClock();
      window_.length = 0;
    } else if (msg.type === "advance") {
      send({ type: "reply", id: msg.id, ok: advance(msg.n) });
    } else if (msg.type === "call") {
      send({ type: "reply", id: msg.id, ok: await call(msg.what, msg.arg) });
    }
  } catch (err) {
    if (msg.type === "boot") send({ type: "failed", error: describe(err) });
    else send({ type: "reply", id: msg.id, error: describe(err) });
  }
};

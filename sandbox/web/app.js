// Skidpad sandbox: the page's thread. It reads the input devices (keyboard, on-screen touch
// controls, a gamepad), sends their state to the worker (which runs the engine) and draws
// the latest view on a canvas; nothing here computes physics. Every device goes through one
// input path (sendInput): held controls, taps, gear presses and a gamepad's analog targets.
// window.skidpad is a small automation API for tests; tests still drive with real input
// events. In stepping mode (ADR 0222: only with ?stepping=1 on a page opened by automation,
// navigator.webdriver) the test, not the clock, advances the drive: skidpad.advance(n).

import { allLaps, getSettings, lapKey, putLap, putSettings } from "./keep.js";
import { Camera, Minimap, drawCar, drawWorld } from "./view.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// the bare URL loads the wheel the server serves (parity.server.SERVED_WHEEL)
const wheelName = params.get("wheel") || "served.whl";
const indexURL = new URL("pyodide/", location.href).href;
const automated = navigator.webdriver === true;
const stepping = params.get("stepping") === "1" && automated;

const KEYMAP = {
  ArrowUp: "throttle", KeyW: "throttle",
  ArrowDown: "brake", KeyS: "brake",
  ArrowLeft: "left", KeyA: "left",
  ArrowRight: "right", KeyD: "right",
  Space: "handbrake",
};
const GEAR_UP = new Set(["KeyE", "ShiftRight"]);
const GEAR_DOWN = new Set(["KeyQ", "ShiftLeft"]);
const CONTROLS = ["throttle", "brake", "left", "right", "handbrake"];
const PAD_DEAD = 0.08; // gamepad stick dead band (share of full travel)

const worker = new Worker("worker.js", { type: "module" });
const keyHeld = Object.fromEntries(CONTROLS.map((k) => [k, false]));
let touchHeld = new Set(); // controls under a finger (or the mouse) now
let taps = {};
let gearUp = 0;
let gearDown = 0;
let amounts = null; // a gamepad's analog targets, or null
let lastSent = "";
const pauses = new Set(); // why the drive is paused: "key", "hidden", "blur"
let view = null;
let setup = null;
let rates = { headroom: 0, simRate: 0, behind: false };
// the ghost drawn: a loaded file's (its drive from the grid, aligned to this drive's
// start) or else the kept best lap's (aligned to the current lap's start; it also gives the
// live delta). {label, hostHz, x, y, c, s, d (or null), align: "drive" | "lap", startStep}
let fileGhost = null;
let bestGhost = null;
let physics = null; // the physics version this page runs
let kept = new Map(); // lapKey -> the kept best lap (keep.js)
let keptChanges = 0; // kept laps set since the map was read (the HUD shows the best)
let keepError = "";
let seenLaps = 0;
let hintDone = false;
const camera = new Camera();
const skids = [];
let nextId = 1;
const pending = new Map();
let options = { preset: params.get("preset") || "hatchbackFwd", surface: "dry", assists: {}, tire: null };
const presetFromURL = params.has("preset");
// `skidpad sandbox --tir FILE` serves the file as tire.tir and names it in the URL
const tireFromURL = params.has("tir");
let loadedTire = null; // the last .tir file loaded ({name, bytes}): the tire picker offers it
let tireError = ""; // why the last tire was not used, in the engine's one line
const bootStart = performance.now();
let loading = { stage: "loading the page", loaded: 0, total: 0 };

function request(msg) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ ...msg, id });
  });
}

// the one input path: every device's state goes to the worker from here
function sendInput(force) {
  const held = {};
  for (const k of CONTROLS) held[k] = keyHeld[k] || touchHeld.has(k);
  const msg = { type: "input", held, taps, gearUp, gearDown, amounts };
  const text = JSON.stringify(msg);
  if (!force && text === lastSent) return;
  lastSent = text;
  worker.postMessage(msg);
  taps = {};
  gearUp = gearDown = 0;
  lastSent = JSON.stringify({ ...msg, taps: {}, gearUp: 0, gearDown: 0 });
}

function setPaused(reason, on) {
  const was = pauses.size > 0;
  if (on) pauses.add(reason);
  else pauses.delete(reason);
  const now = pauses.size > 0;
  if (now !== was) worker.postMessage({ type: "pause", paused: now });
  const box = $("paused");
  // a question on screen explains its own pause
  box.hidden = !now || (pauses.size === 1 && pauses.has("confirm"));
  if (now) {
    const why = pauses.has("hidden")
      ? "the tab is hidden"
      : pauses.has("blur")
        ? "the page lost focus: click it to go on"
        : "press P to go on";
    box.textContent = `paused: ${why}`;
  }
}

let readyResolve;
let readyReject;
const ready = new Promise((res, rej) => ((readyResolve = res), (readyReject = rej)));

function showLoading() {
  const status = $("status");
  if (status.hidden) return;
  const secs = ((performance.now() - bootStart) / 1000).toFixed(1);
  const kb = (n) => `${Math.round(n / 1024)} kB`;
  let text = `${loading.stage}…`;
  if (loading.total) text += ` ${kb(loading.loaded)} of ${kb(loading.total)}`;
  else if (loading.loaded) text += ` ${kb(loading.loaded)}`;
  status.textContent = `${text} (${secs} s)`;
  if (loading.total) {
    const bar = document.createElement("progress");
    bar.max = loading.total;
    bar.value = loading.loaded;
    status.append(document.createElement("br"), bar);
  }
}
const loadingTimer = setInterval(showLoading, 200);

worker.onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === "loading") {
    loading = msg;
    showLoading();
  } else if (msg.type === "ready") {
    fillPickers(msg.info.catalogue);
    showVersions(msg.info);
    physics = msg.info.catalogue.physics_version;
    loading = { stage: "starting the drive" };
    restoreKept(msg.info.catalogue)
      .then(tireOfURL)
      .then(() => start(options))
      .then(() => {
      clearInterval(loadingTimer);
      $("status").hidden = true;
      readyResolve({ ...msg.info, first_frame_ms: performance.now() - bootStart });
    }, readyReject);
  } else if (msg.type === "failed") {
    clearInterval(loadingTimer);
    $("status").hidden = false;
    $("status").textContent = `the engine stopped: ${msg.error}`;
    readyReject(new Error(msg.error));
  } else if (msg.type === "view") {
    onView(msg.view);
    rates = msg;
  } else if (msg.type === "verifying") {
    const bar = $("verify-progress");
    if (msg.total) {
      bar.max = msg.total;
      bar.value = msg.n;
    } else bar.removeAttribute("value");
    $("verify-head").textContent = msg.stage
      ? `${verifying}: ${msg.stage}` // archived physics: fetched, then replayed (physics.js)
      : `${verifying}: replaying, ${msg.n} of ${msg.total} host steps`;
  } else if (msg.type === "reply") {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (!p) return;
    if ("error" in msg) p.reject(new Error(msg.error));
    else p.resolve(msg.ok);
  }
};

let engineVersion = "";
function showVersions(info) {
  const cat = info.catalogue;
  engineVersion = cat.engine_version;
  // the physics version the page runs: the engine stamps one from recording format 3 on
  const physics = cat.physics_version == null ? "not stamped by this engine" : cat.physics_version;
  $("versions").textContent =
    `engine ${cat.engine_version}, physics version ${physics}, Pyodide ${info.pyodide}` +
    (stepping ? " — stepping mode (automation): the test advances the drive" : "");
}

async function start(opts) {
  const next = { ...options, ...opts };
  let out;
  try {
    out = await request({ type: "start", options: next });
    tireError = "";
  } catch (err) {
    if (!next.tire) throw err;
    // a tire the engine refuses (a bad file, or one this car cannot carry): said in one
    // line; the drive before goes on, or the car starts on its own tire
    tireError = `${next.tire.name} not used: ${err.message}`;
    if (view) {
      showPickers();
      return view;
    }
    next.tire = null;
    out = await request({ type: "start", options: next });
  }
  options = next;
  if (options.tire) loadedTire = options.tire;
  // the settings are kept before the new drive shows: a reload right after finds them
  await putSettings({
    preset: options.preset, surface: options.surface, assists: options.assists || {}, tire: options.tire,
  }).catch((err) => (keepError = err.message));
  view = out.view;
  setup = out.setup;
  skids.length = 0;
  seenLaps = 0;
  if (fileGhost) fileGhost.startStep = 0;
  $("download").disabled = false;
  showPickers();
  chooseBestGhost();
  showKept();
  return view;
}

function showPickers() {
  $("preset").value = options.preset;
  $("surface").value = options.surface;
  showTire();
  document.querySelectorAll(".assist").forEach((sel) => {
    const v = (options.assists || {})[sel.dataset.assist];
    sel.value = v === true ? "on" : v === false ? "off" : "";
  });
}

function fillPickers(cat) {
  const fill = (sel, values, labels) => {
    sel.innerHTML = "";
    values.forEach((v, i) => sel.add(new Option(labels ? labels[i] : v, v)));
  };
  fill($("preset"), cat.presets);
  fill($("surface"), cat.surfaces);
  document.querySelectorAll(".assist").forEach((sel) => fill(sel, ["", "on", "off"], ["as car", "on", "off"]));
  const restart = async (ev) => {
    if (!(await askDiscard("change the settings"))) {
      showPickers(); // the lap goes on with the settings it began with
      ev.target.blur();
      $("view").focus();
      return;
    }
    const assists = {};
    document.querySelectorAll(".assist").forEach((sel) => {
      if (sel.value) assists[sel.dataset.assist] = sel.value === "on";
    });
    start({ preset: $("preset").value, surface: $("surface").value, assists });
    // a picker gives up focus after a change: the keys drive the car again
    ev.target.blur();
    $("view").focus();
  };
  $("preset").onchange = $("surface").onchange = restart;
  document.querySelectorAll(".assist").forEach((sel) => (sel.onchange = restart));
  $("tire").onchange = async (ev) => {
    const tire = ev.target.value === "file" ? loadedTire : null;
    if (await askDiscard("change the tire")) await start({ tire });
    else showPickers();
    ev.target.blur();
    $("view").focus();
  };
}

// ---------------------------------------------------------------------------- tires

// The car runs on its preset's tire, or on a person's own MF 6.1 tire (a .tir file, on both
// axles): the engine reads it as `skidpad tir check` does and embeds it in the recording, so
// a lap on it verifies anywhere. Laps on it are kept apart from the preset's (keep.js).
function driveTire() {
  return setup && setup.tire ? setup.tire : null;
}

function showTire() {
  const sel = $("tire");
  sel.innerHTML = "";
  sel.add(new Option("the car's own", ""));
  if (loadedTire) sel.add(new Option(loadedTire.name, "file"));
  sel.value = options.tire ? "file" : "";
  const t = driveTire();
  const note = $("tire-note");
  note.className = tireError ? "bad" : "";
  note.textContent = tireError || (t ? `${t.name}: MF 6.1 on both axles` : "");
  note.hidden = !note.textContent;
}

async function tireOfURL() {
  if (!tireFromURL) return;
  try {
    const response = await fetch("tire.tir");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    options.tire = { name: params.get("tir") || "tire.tir", bytes: new Uint8Array(await response.arrayBuffer()) };
  } catch (err) {
    tireError = `${params.get("tir")} not used: ${err.message}`;
  }
}

async function loadTire(file) {
  const tire = { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  if (await askDiscard("change the tire")) await start({ tire });
  showPickers();
}
onFileChosen($("load-tir"), loadTire);

// the base of a file name for this drive's car: "sportsRwd" or "sportsRwd-mytire"
function carName(preset, tire) {
  return tire ? `${preset}-${tire.name.replace(/\.tir$/i, "").replace(/[^\w.-]+/g, "_")}` : preset;
}

// ---------------------------------------------------------------------------- keyboard

// Keys drive the car unless a text field has focus; no key changes a setting (a focused
// picker's own arrow and letter keys are not let through).
function isTextField(el) {
  if (!el) return false;
  if (el.isContentEditable || el instanceof HTMLTextAreaElement) return true;
  return el instanceof HTMLInputElement && !["file", "button", "checkbox", "radio", "range", "submit", "reset"].includes(el.type);
}

function onKey(ev, down) {
  if (isTextField(ev.target)) return;
  if (confirming) {
    // the question on screen takes the keys: Enter discards, Escape keeps driving
    ev.preventDefault();
    if (down && ev.code === "Enter") answer(true);
    else if (down && ev.code === "Escape") answer(false);
    return;
  }
  const name = KEYMAP[ev.code];
  if (name) {
    if (down && !keyHeld[name]) taps[name] = true;
    keyHeld[name] = down;
    ev.preventDefault();
    sendInput(true);
    return;
  }
  if (ev.target instanceof HTMLSelectElement && ev.key.length === 1) ev.preventDefault(); // no type-ahead
  if (!down || ev.repeat) return;
  if (GEAR_UP.has(ev.code)) gearUp += 1;
  else if (GEAR_DOWN.has(ev.code)) gearDown += 1;
  else if (ev.code === "KeyR") askDiscard("reset to the grid").then((yes) => yes && start({}));
  else if (ev.code === "KeyP") setPaused("key", !pauses.has("key"));
  else return;
  ev.preventDefault();
  sendInput(true);
}
window.addEventListener("keydown", (ev) => onKey(ev, true), true);
window.addEventListener("keyup", (ev) => onKey(ev, false), true);

// a hidden tab or a page without focus pauses the drive (and so the lap timer)
function releaseAll() {
  for (const k in keyHeld) keyHeld[k] = false;
  touchHeld = new Set();
  sendInput(true);
}
window.addEventListener("blur", () => {
  releaseAll();
  // in stepping mode the test owns simulated time (and its pages take focus in turn)
  if (!stepping) setPaused("blur", true);
});
window.addEventListener("focus", () => setPaused("blur", false));
document.addEventListener("visibilitychange", () => {
  const hidden = document.visibilityState === "hidden";
  if (hidden) releaseAll();
  setPaused("hidden", hidden);
});
$("view").addEventListener("pointerdown", () => setPaused("blur", false));
$("paused").addEventListener("pointerdown", () => {
  setPaused("blur", false);
  $("view").focus();
});

// ---------------------------------------------------------------------------- touch

// On-screen controls: every finger on a control holds it (multi-touch: throttle and
// steering at once); a control pressed and released between two host steps still acts for
// one (a tap), as a key does.
const touchBox = $("touch");
touchBox.hidden = !(navigator.maxTouchPoints > 0 || params.get("touch") === "1");
function controlAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const button = el && el.closest ? el.closest("#touch [data-input]") : null;
  return button ? button.dataset.input : null;
}
function setTouch(now) {
  for (const k of now) if (!touchHeld.has(k)) taps[k] = true;
  touchHeld = now;
  touchBox.querySelectorAll("[data-input]").forEach((b) => b.classList.toggle("on", now.has(b.dataset.input)));
  sendInput(true);
}
function onTouch(ev) {
  ev.preventDefault();
  const now = new Set();
  for (const t of ev.touches) {
    const c = controlAt(t.clientX, t.clientY);
    if (c) now.add(c);
  }
  setTouch(now);
}
for (const type of ["touchstart", "touchmove", "touchend", "touchcancel"]) {
  touchBox.addEventListener(type, onTouch, { passive: false });
}
touchBox.addEventListener("pointerdown", (ev) => {
  if (ev.pointerType !== "mouse") return;
  const c = controlAt(ev.clientX, ev.clientY);
  if (c) setTouch(new Set([c]));
});
window.addEventListener("pointerup", (ev) => {
  if (ev.pointerType === "mouse" && touchHeld.size) setTouch(new Set());
});

// ---------------------------------------------------------------------------- gamepad

// The Gamepad API (standard mapping): left stick x steers, the triggers are throttle (7)
// and brake (6), the bumpers shift (5 up, 4 down). Analog values are the ramps' targets.
const padPressed = {};
function pollGamepad() {
  const pads = navigator.getGamepads ? Array.from(navigator.getGamepads()).filter(Boolean) : [];
  const pad = pads.find((p) => p.connected !== false);
  if (!pad) {
    if (amounts) {
      amounts = null;
      sendInput();
    }
    return;
  }
  const button = (i) => (pad.buttons[i] ? Number(pad.buttons[i].value ?? (pad.buttons[i].pressed ? 1 : 0)) : 0);
  const x = pad.axes.length ? Number(pad.axes[0]) : 0;
  const steer = Math.abs(x) <= PAD_DEAD ? 0 : -Math.sign(x) * Math.min(1, (Math.abs(x) - PAD_DEAD) / (1 - PAD_DEAD));
  const clamp = (v) => Math.max(0, Math.min(1, v));
  amounts = { throttle_amount: clamp(button(7)), brake_amount: clamp(button(6)), steer_amount: steer };
  for (const [i, dir] of [[5, 1], [4, -1]]) {
    const on = button(i) > 0.5;
    if (on && !padPressed[i]) dir > 0 ? (gearUp += 1) : (gearDown += 1);
    padPressed[i] = on;
  }
  sendInput();
}

// ---------------------------------------------------------------------------- buttons

let lastDownload = null;
let downloads = 0; // two drives can give the same text: a driver waits for this to move
function saveText(text, name) {
  lastDownload = text;
  downloads += 1;
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
$("download").onclick = async () => {
  saveText(await request({ type: "call", what: "recording" }), `${carName(options.preset, driveTire())}-sandbox.json`);
};

// "Load recording": `skidpad verify` of the file, run in the worker; its verdict, in the
// command's words, replaces whatever the box showed before (text and styling alike).
let verifying = "";
let lastVerdict = null;
// the physics a verdict names, for a label: " (physics 7)"
const physicsOf = (out) => (out.physics && out.physics.version != null ? ` (physics ${out.physics.version})` : "");
async function verifyFile(file) {
  const out = await verifyBytes(file.name, new Uint8Array(await file.arrayBuffer()));
  if (out.ghost) {
    const col = (k) => out.ghost.map((p) => p[k]);
    fileGhost = {
      label: `ghost: ${file.name}${physicsOf(out)}`,
      x: col(0), y: col(1), c: col(2), s: col(3), d: null,
      align: "drive",
      startStep: view ? view.step : 0,
    };
    $("ghost-note").textContent = `shown as the ghost${physicsOf(out)}`;
  } else {
    $("ghost-note").textContent = out.ghost_note || "";
  }
  lastVerdict = out;
  return out;
}
// `skidpad verify` of some bytes in the worker, shown in the verdict box (with the progress
// of fetching and replaying an archived physics); `lap` asks for that lap's ghost as well
async function verifyBytes(name, bytes, lap = null) {
  const box = $("replay-result");
  verifying = name;
  box.className = "panel";
  box.hidden = false;
  $("verify-head").textContent = `skidpad verify ${name}: replaying…`;
  $("verify-progress").hidden = false;
  $("verify-progress").removeAttribute("value");
  $("verdict-text").textContent = "";
  $("ghost-note").textContent = "";
  let out;
  try {
    const arg = lap == null ? { name, bytes } : { name, bytes, lap };
    out = JSON.parse(await request({ type: "call", what: "verify", arg }));
  } catch (err) {
    out = { exit: 2, text: `skidpad verify: ${name}: ${err.message}`, ghost: null, ghost_note: "" };
  }
  $("verify-progress").hidden = true;
  $("verify-head").textContent = `skidpad verify ${name} (exit ${out.exit})`;
  $("verdict-text").textContent = out.text;
  box.className = `panel ${out.exit === 0 ? "ok" : "bad"}`;
  return out;
}

// A kept lap of another physics as the ghost (ADR 0253): its kept recording is verified and
// replayed under its own physics (fetched if need be), and the ghost is that replay's lap,
// never the poses stored with it. It becomes the ghost and the live delta's reference, the
// delta labelled with its physics, until the car or surface changes.
async function replayKept(r) {
  const name = `${carName(r.preset, r.tire)}-${r.surface}-physics${r.physics}-best.json`;
  const out = await verifyBytes(name, new TextEncoder().encode(r.recording), r.lap);
  lastVerdict = out;
  const ran = out.physics ? out.physics.version : null;
  if (!out.lap_ghost || ran !== r.physics) {
    $("ghost-note").textContent = out.exit !== 0 ? "no ghost: the kept recording does not verify"
      : `no ghost: the kept recording is physics ${ran}, not ${r.physics}`;
    return out;
  }
  fileGhost = null; // the latest choice of ghost wins
  bestGhost = {
    ...out.lap_ghost,
    label: `ghost: best lap ${fmt(r.time_s)} (physics ${ran})`,
    align: "lap",
    time_s: r.time_s,
    physics: ran,
    chosen: { preset: options.preset, surface: options.surface, tire: tireId() },
  };
  deltaAt = 0;
  $("ghost-note").textContent = `best lap ${fmt(r.time_s)} replayed under physics ${ran}: shown as the ghost`;
  return out;
}
onFileChosen($("load"), verifyFile);

// a file chooser: the chosen file to `handle`, then the chooser is emptied (the same file
// can be chosen again) and the keys drive the car again
function onFileChosen(input, handle) {
  input.onchange = async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    await handle(file);
    ev.target.value = "";
    ev.target.blur();
    $("view").focus();
  };
}

// ---------------------------------------------------------------------------- laps kept

// Best lap per car, surface and physics version, kept in IndexedDB (keep.js, ADR 0251), with
// the settings; the best lap of this car and surface under this page's physics is the
// default ghost and the live delta's reference.
async function restoreKept(cat) {
  try {
    const saved = await getSettings();
    if (saved) {
      if (saved.preset && cat.presets.includes(saved.preset) && !presetFromURL) options.preset = saved.preset;
      if (saved.surface && cat.surfaces.includes(saved.surface)) options.surface = saved.surface;
      if (saved.assists) options.assists = saved.assists;
      if (saved.tire && !tireFromURL) options.tire = saved.tire;
    }
    kept = new Map((await allLaps()).map((r) => [r.key, r]));
    hintDone = kept.size > 0; // the first-run hint is for a browser that has driven nothing
  } catch (err) {
    keepError = err.message;
  }
}

function tireId() {
  const t = driveTire();
  return t ? t.id : null;
}

function currentKey() {
  return lapKey(options.preset, options.surface, physics, tireId());
}

function chooseBestGhost() {
  // a kept lap of another physics the user chose stays the ghost through R and new best
  // laps, until the car or surface changes (ADR 0253)
  const g = bestGhost;
  if (g && g.chosen && g.chosen.preset === options.preset && g.chosen.surface === options.surface &&
      g.chosen.tire === tireId()) {
    deltaAt = 0;
    return;
  }
  const best = kept.get(currentKey());
  bestGhost = best && best.ghost
    ? { ...best.ghost, label: `ghost: best lap ${fmt(best.time_s)}`, align: "lap", time_s: best.time_s, physics }
    : null;
  deltaAt = 0;
}

let keeping = Promise.resolve();
// a lap just completed: kept if it is valid and beats the kept one for this key
function keepLaps(v) {
  const fresh = v.laps.slice(seenLaps);
  seenLaps = v.laps.length;
  const key = currentKey();
  const preset = options.preset;
  const tire = driveTire();
  const surface = options.surface;
  const assists = { ...(options.assists || {}) };
  for (const lap of fresh) {
    if (!lap.valid) continue;
    const old = kept.get(key);
    if (old && old.time_s <= lap.time_s) continue;
    keeping = keeping.then(async () => {
      const again = kept.get(key);
      if (again && again.time_s <= lap.time_s) return;
      try {
        const ghost = JSON.parse(await request({ type: "call", what: "lapGhost", arg: lap.lap }));
        const recording = await request({ type: "call", what: "recording" });
        const record = {
          key, preset, tire: tire ? { name: tire.name, id: tire.id } : null, surface, physics,
          engine: engineVersion, lap: lap.lap,
          time_s: lap.time_s, sectors_s: lap.sectors_s, assists,
          date: new Date().toISOString(), recording,
          ghost: { host_hz: ghost.host_hz, x: ghost.x, y: ghost.y, c: ghost.c, s: ghost.s, d: ghost.d },
        };
        kept.set(key, record);
        keptChanges += 1;
        if (key === currentKey()) chooseBestGhost();
        showKept();
        await putLap(record);
      } catch (err) {
        keepError = err.message;
      }
    });
  }
}

// the kept laps, this car's first; a lap of another physics is named as such, is never the
// default ghost, and its "ghost" button replays it under its own physics (ADR 0253)
function showKept() {
  const rows = $("kept-rows");
  rows.innerHTML = "";
  const list = [...kept.values()].sort((a, b) =>
    a.preset === options.preset && b.preset !== options.preset ? -1
      : b.preset === options.preset && a.preset !== options.preset ? 1
        : a.key < b.key ? -1 : 1);
  $("kept").hidden = list.length === 0 && !keepError;
  $("kept-error").textContent = keepError ? `nothing kept: ${keepError}` : "";
  for (const r of list) {
    const tr = document.createElement("tr");
    const older = r.physics !== physics;
    if (older) tr.className = "older";
    if (r.key === currentKey()) tr.classList.add("current");
    const cells = [r.tire ? `${r.preset} on ${r.tire.name}` : r.preset, r.surface, fmt(r.time_s),
      !older ? `physics ${r.physics}`
        : r.physics > physics ? `physics ${r.physics}: newer than this page's, not replayed here`
          : `physics ${r.physics}: older physics`];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.append(td);
    }
    if (r.recording) {
      // the kept lap's recording, for `skidpad verify` (under its own physics) or a ghost
      const td = document.createElement("td");
      const b = document.createElement("button");
      b.textContent = "recording";
      b.title = `download the recording of this ${fmt(r.time_s)} lap`;
      b.onclick = () => saveText(r.recording, `${carName(r.preset, r.tire)}-${r.surface}-physics${r.physics}-best.json`);
      td.append(b);
      if (older && r.physics < physics) {
        const g = document.createElement("button");
        g.textContent = "ghost";
        g.className = "replay-ghost";
        g.title = `replay this lap under physics ${r.physics} and drive against it`;
        g.onclick = () => replayKept(r);
        td.append(g);
      }
      tr.append(td);
    }
    tr.dataset.key = r.key;
    rows.append(tr);
  }
}

// ---------------------------------------------------------------------------- asking first

let confirming = null; // the pending question's resolver
function lapInProgress() {
  return !!(view && view.lap > 0);
}
function askDiscard(what) {
  if (!lapInProgress()) return Promise.resolve(true);
  if (confirming) return Promise.resolve(false);
  releaseAll();
  setPaused("confirm", true);
  $("confirm-text").textContent =
    `Lap ${view.lap} is in progress (${fmt(view.lap_time)} s). ${what[0].toUpperCase()}${what.slice(1)} and discard it?`;
  $("confirm").hidden = false;
  $("confirm-yes").focus();
  return new Promise((resolve) => (confirming = resolve));
}
function answer(yes) {
  const resolve = confirming;
  if (!resolve) return;
  confirming = null;
  $("confirm").hidden = true;
  setPaused("confirm", false);
  $("view").focus();
  resolve(yes);
}
$("confirm-yes").onclick = () => answer(true);
$("confirm-no").onclick = () => answer(false);

// ---------------------------------------------------------------------------- drawing

const canvas = $("view");
const ctx = canvas.getContext("2d");
const minimap = new Minimap($("minimap"));

function fmt(t) {
  return t == null ? "-" : t.toFixed(3);
}

function ghostPose(g, v) {
  if (!g) return null;
  let k;
  if (g.align === "drive") k = v.step - g.startStep;
  else k = v.lap_start_step == null ? 0 : v.step - v.lap_start_step; // waits at the line
  k = Math.max(0, Math.min(k, g.x.length - 1));
  return [g.x[k], g.y[k], g.c[k], g.s[k]];
}

// The live delta: this lap's time minus the best lap's time at the same distance along the
// lap (interpolated between the ghost's host steps). Negative is ahead.
let deltaAt = 0;
let lastDelta = null;
function liveDelta(v) {
  const g = bestGhost;
  if (!g || !g.d || !v.lap || v.lap_start_step == null || !v.car) return null;
  const d = v.car.distance;
  const n = g.d.length;
  let k = Math.max(0, Math.min(deltaAt, n - 2));
  while (k < n - 2 && g.d[k + 1] <= d) k++;
  while (k > 0 && g.d[k] > d) k--;
  deltaAt = k;
  const span = g.d[k + 1] - g.d[k];
  const f = span > 0 ? Math.max(0, Math.min(1, (d - g.d[k]) / span)) : 0;
  // pose k is taken after host step k + 1 of the ghost's lap, as the current lap's poses
  return (v.step - v.lap_start_step - (k + f)) / g.host_hz;
}

const WHEEL_NAMES = { FL: "Front-left", FR: "Front-right", RL: "Rear-left", RR: "Rear-right" };
function limitsText(lap, x, done) {
  const by = x.excess_m < 0.0005 ? "less than 0.001 m" : `${x.excess_m.toFixed(3)} m`;
  return `${done ? `Lap ${lap} did not count` : `Lap ${lap} no longer counts`}: track limits. ` +
    `${WHEEL_NAMES[x.wheel] || x.wheel} wheel (${x.wheel}) ${by} beyond the limit ` +
    `(${Math.abs(x.offset_m).toFixed(3)} m from the centreline, limit ${x.limit_m.toFixed(3)} m), ` +
    `${x.distance_m.toFixed(3)} m into the lap, sector ${x.sector}`;
}

// the banner: at once when the lap stops counting, and for 3 s after an invalid lap ends
function showBanner(v) {
  const box = $("limits");
  let text = "";
  if (v.lap && v.violation) text = limitsText(v.lap, v.violation, false);
  else if (v.lap && v.lap_reason) text = `Lap ${v.lap} no longer counts: ${v.lap_reason}`;
  else if (v.laps.length && !v.laps[v.laps.length - 1].valid && v.lap_time < 3) {
    const last = v.laps[v.laps.length - 1];
    text = v.last_violation ? limitsText(last.lap, v.last_violation, true) : `Lap ${last.lap} did not count: ${last.reason}`;
  }
  if (box.textContent !== text) box.textContent = text;
  box.hidden = !text || !!confirming; // a question on screen has the middle to itself
}

function showHint(v) {
  if (!hintDone && (v.throttle > 0 || v.speed > 0.5 || v.lap > 0)) hintDone = true;
  const hint = $("hint");
  hint.hidden = hintDone;
  if (!hintDone) hint.textContent = touchBox.hidden ? "press ↑ (or W) to start" : "press ↑ or touch gas to start";
}

function drawHud(v) {
  $("speed").textContent = Math.round(v.speed * 3.6);
  $("gear").textContent = v.gear === 0 ? "N" : v.gear < 0 ? "R" : v.gear;
  $("rpm").textContent = Math.round(v.rpm);
  $("throttle-bar").firstElementChild.style.width = `${v.throttle * 100}%`;
  $("brake-bar").firstElementChild.style.width = `${v.brake * 100}%`;
  $("abs-light").classList.toggle("on", v.abs);
  $("tc-light").classList.toggle("on", v.tc);
  $("esc-light").classList.toggle("on", v.esc);
  $("lap").textContent = v.lap || "grid";
  $("lap-time").textContent = fmt(v.lap_time);
  $("lap-valid").textContent = v.lap && !v.lap_valid ? "invalid" : "";
  const best = kept.get(currentKey());
  $("best").textContent = best ? `${fmt(best.time_s)} (kept)` : fmt(v.best);
  const delta = liveDelta(v);
  lastDelta = delta;
  const el = $("delta");
  el.textContent = delta == null ? "-" : `${delta > 0 ? "+" : delta < 0 ? "−" : "±"}${Math.abs(delta).toFixed(2)}`;
  el.className = delta == null ? "" : delta > 0 ? "behind" : "ahead";
  // a delta against a lap of another physics says so
  const other = bestGhost && bestGhost.physics !== physics ? ` vs physics ${bestGhost.physics}` : "";
  if ($("delta-physics").textContent !== other) $("delta-physics").textContent = other;
  const g = fileGhost || bestGhost;
  $("ghost-label").textContent = g ? g.label : "no ghost yet: a valid lap becomes one";
  // two separate facts: how fast the engine could run (headroom), and how fast simulated
  // time actually runs against the clock
  $("headroom").textContent = rates.headroom ? rates.headroom.toFixed(1) : "-";
  $("sim-rate").textContent = pauses.size
    ? "stopped (paused)"
    : stepping
      ? "advanced by the test (stepping mode)"
      : rates.simRate
        ? `${rates.simRate.toFixed(2)}x real time`
        : "-";
  $("behind").textContent = !pauses.size && !stepping && rates.behind ? "falling behind: simulated time slowed" : "";
  const rows = $("lap-rows");
  if (rows.childElementCount !== v.laps.length + 1) {
    rows.innerHTML = "<tr><td>lap</td><td>S1</td><td>S2</td><td>S3</td><td>time</td></tr>";
    v.laps.forEach((lap) => {
      const tr = document.createElement("tr");
      if (!lap.valid) {
        tr.className = "invalid";
        tr.title = lap.reason;
      }
      for (const cell of [lap.lap, ...lap.sectors_s.map(fmt), fmt(lap.time_s)]) {
        const td = document.createElement("td");
        td.textContent = cell;
        tr.append(td);
      }
      rows.append(tr);
    });
  }
}

// every view from the worker goes through here (real time and stepping mode alike)
function onView(v) {
  view = v;
  if (v.laps.length !== seenLaps) keepLaps(v);
}

// What a frame draws depends on these and nothing else (the camera eases over simulated
// time, view.js), so a frame in which none changed draws nothing: a paused drive, a page
// waiting for its test (stepping mode) or a parked car costs no CPU. Redrawing the same
// picture 60 times a second took most of a core in a headless browser.
let drawnFrom = [];
function sceneChanged() {
  const mini = $("minimap");
  const now = [view, setup, fileGhost, fileGhost && fileGhost.startStep, bestGhost, rates,
    pauses.size, kept, keptChanges, confirming, canvas.width, canvas.height,
    mini.clientWidth, mini.clientHeight, self.devicePixelRatio];
  const same = now.length === drawnFrom.length && now.every((x, i) => x === drawnFrom[i]);
  drawnFrom = now;
  return !same;
}
let framesDrawn = 0;

function frame() {
  requestAnimationFrame(frame);
  if (!stepping) pollGamepad();
  if (canvas.width !== canvas.clientWidth || canvas.height !== canvas.clientHeight) {
    canvas.width = canvas.clientWidth;
    canvas.height = canvas.clientHeight;
  }
  if (!view || !setup || !sceneChanged()) return;
  framesDrawn += 1;
  const w = canvas.width;
  const h = canvas.height;
  camera.follow(view, w, h);
  camera.apply(ctx, w, h);
  drawWorld(ctx, setup.track, camera.bounds(w, h));
  if (view.locked.some((l) => l)) skids.push([view.x, view.y]);
  if (skids.length > 4000) skids.splice(0, skids.length - 4000);
  ctx.fillStyle = "rgba(0,0,0,0.5)";
  for (const [sx, sy] of skids) ctx.fillRect(sx - 0.2, sy - 0.2, 0.4, 0.4);
  const gp = ghostPose(fileGhost || bestGhost, view);
  if (gp) drawCar(ctx, setup.wheels, gp, null, 0.45, "#7cc4ff");
  const pose = [view.x, view.y, view.c, view.s];
  drawCar(ctx, setup.wheels, pose, view.wheel_angle, 1, "#e02020", true);
  minimap.draw(setup.track, pose, gp);
  drawHud(view);
  showBanner(view);
  showHint(view);
}

requestAnimationFrame(frame);

// ---------------------------------------------------------------------------- automation

window.skidpad = {
  ready,
  stepping,
  start: (opts = {}) => start(opts),
  car: () => (view ? { ...view.car, step: view.step, time_s: view.time_s } : null),
  laps: () => (view ? view.laps : []),
  // the drive's own tire ({name, id}, null on the preset's) and why the last one was refused
  tire: () => driveTire(),
  tireError: () => tireError,
  view: () => view,
  recording: () => request({ type: "call", what: "recording" }),
  stateHash: () => request({ type: "call", what: "stateHash" }),
  headroom: () => rates.headroom,
  rates: () => ({ ...rates }),
  paused: () => pauses.size > 0,
  // stepping mode: the gamepad is read, then n host steps run with the input state the
  // page holds (delivered by real events before this call); the view after them
  advance: async (n = 1) => {
    pollGamepad();
    const out = await request({ type: "advance", n });
    if (out) {
      onView(out.view); // the view and the rates in one task: one frame draws them
      rates = out;
    }
    await keeping; // a lap just completed is kept before the test looks
    return view;
  },
  // what the page keeps (IndexedDB, keep.js): the kept laps (without their recording and
  // ghost), and the last error if any; the live delta to the kept best lap (s, or null)
  kept: () => [...kept.values()].map(({ recording, ghost: g, ...rest }) => rest),
  keepError: () => keepError,
  delta: () => lastDelta,
  // the ghost drawn now: its label and pose [x, y, cos, sin] (null: none)
  ghost: () => {
    const g = fileGhost || bestGhost;
    return g && view ? { label: g.label, pose: ghostPose(g, view), physics: g.physics ?? null } : null;
  },
  // the bare substep loop's speed on a recording's inputs (docs/sandbox.md)
  bench: async (text) =>
    JSON.parse(await request({ type: "call", what: "bench", arg: { bytes: new TextEncoder().encode(text) } })),
  lastVerdict: () => lastVerdict,
  // how many frames the page has drawn (it draws only when the picture changes)
  framesDrawn: () => framesDrawn,
  // the text the download button last handed to the browser (for drivers without download
  // events, such as Firefox over WebDriver BiDi)
  lastDownload: () => lastDownload,
  downloads: () => downloads,
};

worker.postMessage({ type: "boot", indexURL, wheelURL: `wheel/${wheelName}`, wheelName, stepping });
canvas.focus();

// Skidpad sandbox: the page's thread. It reads the input devices (keyboard, on-screen touch
// controls, a gamepad), sends their state to the worker (which runs the engine) and draws
// the latest view on a canvas; nothing here computes physics. Every device goes through one
// input path (sendInput): held controls, taps, gear presses and a gamepad's analog targets.
// window.skidpad is a small automation API for tests; tests still drive with real input
// events. In stepping mode (ADR 0222: only with ?stepping=1 on a page opened by automation,
// navigator.webdriver) the test, not the clock, advances the drive: skidpad.advance(n).

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
const SCALE = 7; // px per m
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
let ghost = null; // {trajectory, startStep}
const skids = [];
let nextId = 1;
const pending = new Map();
let options = { preset: params.get("preset") || "hatchbackFwd", surface: "dry", assists: {} };
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
  box.hidden = !now;
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
    loading = { stage: "starting the drive" };
    start(options).then(() => {
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
    view = msg.view;
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

function showVersions(info) {
  const cat = info.catalogue;
  // the physics version the page runs: the engine stamps one from recording format 3 on
  const physics = cat.physics_version == null ? "not stamped by this engine" : cat.physics_version;
  $("versions").textContent =
    `engine ${cat.engine_version}, physics version ${physics}, Pyodide ${info.pyodide}` +
    (stepping ? " — stepping mode (automation): the test advances the drive" : "");
}

async function start(opts) {
  options = { ...options, ...opts };
  const out = await request({ type: "start", options });
  view = out.view;
  setup = out.setup;
  skids.length = 0;
  if (ghost) ghost.startStep = 0;
  $("download").disabled = false;
  $("preset").value = options.preset;
  $("surface").value = options.surface;
  return view;
}

function fillPickers(cat) {
  const fill = (sel, values, labels) => {
    sel.innerHTML = "";
    values.forEach((v, i) => sel.add(new Option(labels ? labels[i] : v, v)));
  };
  fill($("preset"), cat.presets);
  fill($("surface"), cat.surfaces);
  document.querySelectorAll(".assist").forEach((sel) => fill(sel, ["", "on", "off"], ["as car", "on", "off"]));
  const restart = (ev) => {
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
  else if (ev.code === "KeyR") start({});
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
$("download").onclick = async () => {
  const text = await request({ type: "call", what: "recording" });
  lastDownload = text;
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  a.download = `${options.preset}-sandbox.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
};

// "Load recording": `skidpad verify` of the file, run in the worker; its verdict, in the
// command's words, replaces whatever the box showed before (text and styling alike).
let verifying = "";
let lastVerdict = null;
async function verifyFile(file) {
  const box = $("replay-result");
  verifying = file.name;
  box.className = "panel";
  box.hidden = false;
  $("verify-head").textContent = `skidpad verify ${file.name}: replaying…`;
  $("verify-progress").hidden = false;
  $("verify-progress").removeAttribute("value");
  $("verdict-text").textContent = "";
  $("ghost-note").textContent = "";
  let out;
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    out = JSON.parse(await request({ type: "call", what: "verify", arg: { name: file.name, bytes } }));
  } catch (err) {
    out = { exit: 2, text: `skidpad verify: ${file.name}: ${err.message}`, ghost: null, ghost_note: "" };
  }
  $("verify-progress").hidden = true;
  $("verify-head").textContent = `skidpad verify ${file.name} (exit ${out.exit})`;
  $("verdict-text").textContent = out.text;
  box.className = `panel ${out.exit === 0 ? "ok" : "bad"}`;
  if (out.ghost) {
    ghost = { trajectory: out.ghost, startStep: view ? view.step : 0 };
    $("ghost-note").textContent = "shown as the ghost";
  } else {
    $("ghost-note").textContent = out.ghost_note || "";
  }
  lastVerdict = out;
  return out;
}
$("load").onchange = async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  await verifyFile(file);
  ev.target.value = "";
  ev.target.blur();
  $("view").focus();
};

// ---------------------------------------------------------------------------- drawing

const canvas = $("view");
const ctx = canvas.getContext("2d");

function strokePath(xs, ys, close) {
  ctx.beginPath();
  ctx.moveTo(xs[0], ys[0]);
  for (let i = 1; i < xs.length; i++) ctx.lineTo(xs[i], ys[i]);
  if (close) ctx.closePath();
  ctx.stroke();
}

function offsetLine(track, d) {
  const xs = track.x.map((x, i) => x + d * track.nx[i]);
  const ys = track.y.map((y, i) => y + d * track.ny[i]);
  return [xs, ys];
}

let edges = null;
function drawTrack(track) {
  if (!edges || edges.track !== track) {
    edges = { track, left: offsetLine(track, track.width / 2), right: offsetLine(track, -track.width / 2) };
  }
  ctx.lineJoin = "round";
  ctx.strokeStyle = "#555";
  ctx.lineWidth = track.width;
  strokePath(track.x, track.y, true);
  ctx.strokeStyle = "#eee";
  ctx.lineWidth = 0.25;
  strokePath(...edges.left, true);
  strokePath(...edges.right, true);
  for (const line of track.lines) {
    const h = track.limit;
    ctx.strokeStyle = line.name === "finish" ? "#fff" : "#fc3";
    ctx.lineWidth = line.name === "finish" ? 0.8 : 0.35;
    ctx.beginPath();
    ctx.moveTo(line.x + line.ty * h, line.y - line.tx * h);
    ctx.lineTo(line.x - line.ty * h, line.y + line.tx * h);
    ctx.stroke();
  }
}

function drawCar(x, y, c, s, wheelAngles, alpha, colour) {
  const w = setup.wheels; // FL FR RL RR body-frame offsets
  ctx.save();
  ctx.globalAlpha = alpha;
  ctx.transform(c, s, -s, c, x, y);
  const front = w[0][0] + 0.6;
  const rear = w[2][0] - 0.6;
  const half = Math.max(w[0][1], w[2][1]) + 0.15;
  ctx.fillStyle = colour;
  ctx.fillRect(rear, -half, front - rear, 2 * half);
  ctx.fillStyle = "#111";
  w.forEach(([lx, ly], i) => {
    ctx.save();
    ctx.translate(lx, ly);
    ctx.rotate(wheelAngles ? wheelAngles[i] : 0);
    ctx.fillRect(-0.33, -0.11, 0.66, 0.22);
    ctx.restore();
  });
  ctx.restore();
}

function fmt(t) {
  return t == null ? "-" : t.toFixed(3);
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
  $("best").textContent = fmt(v.best);
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
    for (const lap of v.laps) {
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
    }
  }
}

function frame() {
  requestAnimationFrame(frame);
  if (!stepping) pollGamepad();
  if (canvas.width !== canvas.clientWidth || canvas.height !== canvas.clientHeight) {
    canvas.width = canvas.clientWidth;
    canvas.height = canvas.clientHeight;
  }
  if (!view || !setup) return;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#2c4a2c";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  // world to screen: y up, centred on the car
  ctx.setTransform(SCALE, 0, 0, -SCALE, canvas.width / 2 - SCALE * view.x, canvas.height / 2 + SCALE * view.y);
  drawTrack(setup.track);
  if (view.locked.some((l) => l)) skids.push([view.x, view.y]);
  if (skids.length > 4000) skids.splice(0, skids.length - 4000);
  ctx.fillStyle = "rgba(0,0,0,0.5)";
  for (const [sx, sy] of skids) ctx.fillRect(sx - 0.2, sy - 0.2, 0.4, 0.4);
  if (ghost) {
    const pose = ghost.trajectory[Math.min(view.step - ghost.startStep, ghost.trajectory.length - 1)];
    if (pose) drawCar(pose[0], pose[1], pose[2], pose[3], null, 0.4, "#9cf");
  }
  drawCar(view.x, view.y, view.c, view.s, view.wheel_angle, 1, "#d22");
  drawHud(view);
}

requestAnimationFrame(frame);

// ---------------------------------------------------------------------------- automation

window.skidpad = {
  ready,
  stepping,
  start: (opts = {}) => start(opts),
  car: () => (view ? { ...view.car, step: view.step, time_s: view.time_s } : null),
  laps: () => (view ? view.laps : []),
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
    if (out) view = out;
    return view;
  },
  // the bare substep loop's speed on a recording's inputs (docs/sandbox.md)
  bench: async (text) =>
    JSON.parse(await request({ type: "call", what: "bench", arg: { bytes: new TextEncoder().encode(text) } })),
  lastVerdict: () => lastVerdict,
  // the text the download button last handed to the browser (for drivers without download
  // events, such as Firefox over WebDriver BiDi)
  lastDownload: () => lastDownload,
};

worker.postMessage({ type: "boot", indexURL, wheelURL: `wheel/${wheelName}`, wheelName, stepping });
canvas.focus();

// Skidpad sandbox: the page's thread. It reads the keyboard, sends the key state to the
// worker (which runs the engine) and draws the latest view on a canvas; nothing here
// computes physics. window.skidpad is a small automation API for tests; tests still drive
// with real key events.

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const wheelName = params.get("wheel");
const indexURL = new URL("pyodide/", location.href).href;

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

const worker = new Worker("worker.js", { type: "module" });
const held = { throttle: false, brake: false, left: false, right: false, handbrake: false };
let taps = {};
let gearUp = 0;
let gearDown = 0;
let paused = false;
let view = null;
let setup = null;
let headroom = 0;
let slowed = false;
let ghost = null; // {trajectory, startStep}
const skids = [];
let nextId = 1;
const pending = new Map();
let options = { preset: params.get("preset") || "hatchbackFwd", surface: "dry", assists: {} };

function request(msg) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ ...msg, id });
  });
}

function sendKeys() {
  worker.postMessage({ type: "keys", held: { ...held }, taps, gearUp, gearDown });
  taps = {};
  gearUp = gearDown = 0;
}

let readyResolve;
let readyReject;
const ready = new Promise((res, rej) => ((readyResolve = res), (readyReject = rej)));

worker.onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === "ready") {
    fillPickers(msg.info.catalogue);
    start(options).then(() => {
      $("status").style.display = "none";
      readyResolve(msg.info);
    }, readyReject);
  } else if (msg.type === "failed") {
    $("status").style.display = "";
    $("status").textContent = `the engine stopped: ${msg.error}`;
    readyReject(new Error(msg.error));
  } else if (msg.type === "view") {
    view = msg.view;
    headroom = msg.headroom;
    slowed = msg.slowed;
  } else if (msg.type === "reply") {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (!p) return;
    if ("error" in msg) p.reject(new Error(msg.error));
    else p.resolve(msg.ok);
  }
};

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
  const restart = () => {
    const assists = {};
    document.querySelectorAll(".assist").forEach((sel) => {
      if (sel.value) assists[sel.dataset.assist] = sel.value === "on";
    });
    start({ preset: $("preset").value, surface: $("surface").value, assists });
    $("view").focus();
  };
  $("preset").onchange = $("surface").onchange = restart;
  document.querySelectorAll(".assist").forEach((sel) => (sel.onchange = restart));
}

// ---------------------------------------------------------------------------- keyboard

function onKey(ev, down) {
  if (ev.target instanceof HTMLSelectElement || ev.target instanceof HTMLInputElement) return;
  const name = KEYMAP[ev.code];
  if (name) {
    if (down && !held[name]) taps[name] = true;
    held[name] = down;
    ev.preventDefault();
    sendKeys();
    return;
  }
  if (!down || ev.repeat) return;
  if (GEAR_UP.has(ev.code)) gearUp += 1;
  else if (GEAR_DOWN.has(ev.code)) gearDown += 1;
  else if (ev.code === "KeyR") start({});
  else if (ev.code === "KeyP") {
    paused = !paused;
    worker.postMessage({ type: "pause", paused });
  } else return;
  ev.preventDefault();
  sendKeys();
}
window.addEventListener("keydown", (ev) => onKey(ev, true));
window.addEventListener("keyup", (ev) => onKey(ev, false));
window.addEventListener("blur", () => {
  for (const k in held) held[k] = false;
  sendKeys();
});

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

$("load").onchange = async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const box = $("replay-result");
  box.style.display = "";
  box.textContent = `replaying ${file.name}…`;
  try {
    const result = JSON.parse(await request({ type: "call", what: "replay", arg: await file.text() }));
    ghost = { trajectory: result.trajectory, startStep: view ? view.step : 0 };
    const claim = result.claimed_final_hash;
    const ok = claim === result.final_hash;
    box.innerHTML = "";
    const line = (text, cls) => {
      const div = document.createElement("div");
      div.textContent = text;
      if (cls) div.className = cls;
      box.append(div);
    };
    line(`${file.name}: ${result.preset}, ${result.steps} steps, shown as the ghost`);
    line(claim ? `final hash ${result.final_hash}: ${ok ? "equals the file's claim" : `MISMATCH, the file claims ${claim}`}` : "the file claims no final hash", ok ? "ok" : "bad");
    for (const lap of result.laps) line(`lap ${lap.lap}: ${lap.time_s.toFixed(3)} s ${lap.valid ? "" : "(invalid)"}`);
  } catch (err) {
    box.textContent = `${file.name}: ${err.message}`;
    box.className = "panel bad";
  }
  ev.target.value = "";
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
  $("headroom").textContent = headroom.toFixed(1);
  $("slowed").textContent = slowed ? "(falling behind: simulated time slowed)" : paused ? "(paused)" : "";
  const rows = $("lap-rows");
  if (rows.childElementCount !== v.laps.length) {
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
  start: (opts = {}) => start(opts),
  car: () => (view ? { ...view.car, step: view.step, time_s: view.time_s } : null),
  laps: () => (view ? view.laps : []),
  view: () => view,
  recording: () => request({ type: "call", what: "recording" }),
  stateHash: () => request({ type: "call", what: "stateHash" }),
  headroom: () => headroom,
  // the text the download button last handed to the browser (for drivers without download
  // events, such as Firefox over WebDriver BiDi)
  lastDownload: () => lastDownload,
};

worker.postMessage({ type: "boot", indexURL, wheelURL: `wheel/${wheelName}`, wheelName });
canvas.focus();

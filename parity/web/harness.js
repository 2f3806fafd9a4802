// Skidpad parity harness page (docs/architecture.md §5).
//
// Starts worker.js (a module Web Worker), which boots Pyodide from this
// loopback server (never a CDN), unpacks the project wheel named by the
// page's ?wheel= query, imports parity.worker (an import, not loadPackage,
// is the proof it worked) and runs worker requests. The page keeps its own
// thread free, so the driver can poll for results under its own time limit.
//
//   window.skidpad.boot                 Promise<info> (rejects with the boot error)
//   window.skidpad.phase                "booting" | "ready" | "failed"
//   window.skidpad.info                 {pyodide, python, platform, boot_ms, user_agent, ...}
//   window.skidpad.log                  page + worker console, Python stdout/stderr
//   window.skidpadSubmit(id, json)      send a request to the worker, return at once
//   window.skidpad.results[id]          {done:false} until {done:true, ok:json} | {done:true, error}
//                                       (with fatal:true when the worker is gone)
//   window.skidpadRun(json)             Promise<responseJson> (rejects with the error)
//   window.skidpadAbort(reason)         terminate the worker (after a time limit)

import { mirrorConsole } from "./console-mirror.js";

const LOG_LIMIT = 5000;
const state = {
  phase: "booting",
  error: null,
  info: null,
  log: [],
  results: {},
  boot: null,
};
window.skidpad = state;

function record(kind, line) {
  state.log.push(`[${kind}] ${line}`);
  if (state.log.length > LOG_LIMIT) state.log.splice(0, state.log.length - LOG_LIMIT);
}

// Keep the console in the page too: not every driver (WebKitWebDriver) reports it.
mirrorConsole(window, record);
window.addEventListener("error", (ev) => record("pageerror", `${ev.message} ${ev.filename}:${ev.lineno}`));

function setStatus(line) {
  const el = document.getElementById("status");
  if (el) el.textContent = line;
}

const waiting = new Map(); // id -> {resolve, reject} for skidpadRun
let bootSettle = null;
const worker = new Worker(new URL("worker.js", location.href), { type: "module" });

function fail(error) {
  state.error = error;
  state.phase = "failed";
  record("error", `harness failed: ${error}`);
  setStatus(`failed: ${error}`);
  if (bootSettle) bootSettle.reject(new Error(error));
  for (const [id, entry] of waiting) entry.reject(new Error(error));
  waiting.clear();
  for (const id of Object.keys(state.results)) {
    if (!state.results[id].done) state.results[id] = { done: true, error, fatal: true };
  }
}

worker.onerror = (ev) => {
  ev.preventDefault();
  fail(`worker error: ${ev.message || "script failed to load"} ${ev.filename || ""}:${ev.lineno || ""}`);
};
worker.onmessageerror = () => fail("worker sent a message that could not be read");

worker.onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === "log") {
    record(msg.kind, msg.text);
  } else if (msg.type === "ready") {
    const info = msg.info;
    info.user_agent = navigator.userAgent;
    info.boot_ms = performance.now();
    state.info = info;
    state.phase = "ready";
    setStatus(`ready: Pyodide ${info.pyodide}, Python ${info.python}`);
    bootSettle.resolve(info);
  } else if (msg.type === "failed") {
    fail(`Pyodide boot failed: ${msg.error}`);
  } else if (msg.type === "result") {
    const result = "ok" in msg ? { done: true, ok: msg.ok, ms: msg.ms } : { done: true, error: msg.error, ms: msg.ms };
    if ("error" in result) record("error", `request ${msg.id} failed: ${msg.error}`);
    if (waiting.has(msg.id)) {
      const entry = waiting.get(msg.id);
      waiting.delete(msg.id);
      if ("ok" in result) entry.resolve(result.ok);
      else entry.reject(new Error(result.error));
    } else {
      state.results[msg.id] = result;
    }
  }
};

let nextPromiseId = 0;

window.skidpadSubmit = (id, json) => {
  if (state.phase !== "ready") {
    state.results[id] = {
      done: true,
      error: `harness not ready (phase ${state.phase}): ${state.error}`,
      fatal: true,
    };
    return false;
  }
  state.results[id] = { done: false };
  worker.postMessage({ type: "run", id, json });
  return true;
};

window.skidpadRun = (json) =>
  new Promise((resolve, reject) => {
    if (state.phase !== "ready") {
      reject(new Error(`harness not ready (phase ${state.phase}): ${state.error}`));
      return;
    }
    const id = `p${++nextPromiseId}`;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ type: "run", id, json });
  });

window.skidpadAbort = (reason) => {
  worker.terminate();
  fail(`aborted: ${reason}`);
};

state.boot = new Promise((resolve, reject) => {
  bootSettle = { resolve, reject };
});
// a failed boot is reported through state.phase; keep it off the unhandled list
state.boot.catch(() => {});

const wheelName = new URLSearchParams(location.search).get("wheel");
if (!wheelName) {
  fail("page URL names no wheel (?wheel=<file>.whl)");
} else {
  worker.postMessage({
    type: "boot",
    indexURL: new URL("pyodide/", location.href).href,
    wheelURL: new URL("wheel/" + encodeURIComponent(wheelName), location.href).href,
    wheelName,
  });
}

// Skidpad parity harness: the Web Worker that runs Pyodide (docs/architecture.md §5).
//
// Pyodide runs here, not on the page's thread, so a long request never blocks
// the page: the driver's polling and time limits keep working, and a stuck
// request can be ended with worker.terminate(). Protocol (postMessage):
//
//   page -> worker  {type: "boot", indexURL, wheelURL, wheelName}
//                   {type: "run", id, json}
//   worker -> page  {type: "log", kind, text}
//                   {type: "ready", info} | {type: "failed", error}
//                   {type: "result", id, ok: json} | {type: "result", id, error}

import { mirrorConsole } from "./console-mirror.js";

const send = (msg) => self.postMessage(msg);

mirrorConsole(self, (kind, line) => send({ type: "log", kind: `worker.${kind}`, text: line }));

function describe(err) {
  // a PythonError's message is the Python traceback
  return (err && (err.message || String(err))) || "unknown error";
}

// The Python side: one function, JSON text in, JSON text out.
const RUNNER = `
import json as _json
import platform as _platform
import sys as _sys

import skidpad.parity.worker as _worker


def _skidpad_run(text):
    return _json.dumps(_worker.run_request(_json.loads(text)))


def _skidpad_info():
    return _json.dumps({"python": _sys.version, "platform": _platform.platform(),
                        "worker": _worker.__file__})
`;

let runRequest = null;

async function boot({ indexURL, wheelURL, wheelName }) {
  const t0 = performance.now();
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  const pyodide = await loadPyodide({
    indexURL,
    // every package URL resolves against the loopback server, never the CDN
    packageBaseUrl: indexURL,
    stdout: (line) => send({ type: "log", kind: "stdout", text: line }),
    stderr: (line) => send({ type: "log", kind: "stderr", text: line }),
  });
  const t1 = performance.now();
  send({ type: "log", kind: "harness", text: `Pyodide ${pyodide.version} loaded in ${Math.round(t1 - t0)} ms` });

  const response = await fetch(wheelURL);
  if (!response.ok) throw new Error(`wheel ${wheelName}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  pyodide.unpackArchive(bytes, "wheel");

  // The import is the check: a broken or missing wheel fails here, by name.
  pyodide.runPython(RUNNER);
  runRequest = pyodide.globals.get("_skidpad_run");
  const info = JSON.parse(pyodide.globals.get("_skidpad_info")());
  info.pyodide = pyodide.version;
  info.wheel = wheelName;
  info.pyodide_ms = t1 - t0;
  info.worker_boot_ms = performance.now() - t0;
  return info;
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === "boot") {
    try {
      send({ type: "ready", info: await boot(msg) });
    } catch (err) {
      send({ type: "failed", error: describe(err) });
    }
  } else if (msg.type === "run") {
    const t0 = performance.now();
    try {
      if (runRequest === null) throw new Error("Pyodide is not booted");
      send({ type: "result", id: msg.id, ok: runRequest(msg.json), ms: performance.now() - t0 });
    } catch (err) {
      send({ type: "result", id: msg.id, error: describe(err), ms: performance.now() - t0 });
    }
  }
};

// Pyodide under Node.js for the Skidpad parity harness (docs/architecture.md §5).
//
//   node runner.mjs --pyodide DIR --wheel FILE
//
// Loads the npm package `pyodide` from DIR (node_modules/pyodide) with every URL pointing
// at that folder, so nothing can fall back to a CDN; unpacks the project wheel into
// Pyodide's site-packages; then speaks parity.worker's line protocol: one
// `@@skidpad {"ready": ...}` line, then one `@@skidpad <response>` line per request line
// read on stdin, until stdin closes. Pyodide starts once per process, however many
// requests follow. Everything else (Python's stdout/stderr, console.*) goes to stderr, so
// stdout carries only protocol lines.

import readline from "node:readline";

import { bootPyodide, toStderr } from "./boot.mjs";

const PREFIX = "@@skidpad ";

function die(message) {
  process.stderr.write(`runner.mjs: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i];
    if (!["--pyodide", "--wheel"].includes(key) || i + 1 >= argv.length) {
      die(`usage: node runner.mjs --pyodide DIR --wheel FILE (bad argument ${key})`);
    }
    args[key.slice(2)] = argv[i + 1];
  }
  if (!args.pyodide || !args.wheel) die("both --pyodide DIR and --wheel FILE are required");
  return args;
}


async function main() {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  let booted;
  try {
    booted = await bootPyodide(args.pyodide, args.wheel);
  } catch (err) {
    die(err.message);
  }
  const { pyodide, version, loadMs } = booted;
  const handleLine = pyodide.runPython(
    "import skidpad.parity.worker\nskidpad.parity.worker.handle_line"
  );
  const info = pyodide.runPython(
    "import json, skidpad.parity.worker\njson.dumps(skidpad.parity.worker.runtime_info())"
  );
  const ready = {
    ready: true,
    ...JSON.parse(info),
    pyodide: version ?? pyodide.version,
    node: process.version,
    load_s: loadMs / 1000,
    boot_s: (performance.now() - started) / 1000,
  };
  process.stdout.write(PREFIX + JSON.stringify(ready) + "\n");

  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    // handle_line never raises for a bad request; a Python error here is a worker bug,
    // reported as a request_error rather than a dead process.
    let reply;
    try {
      reply = handleLine(line);
    } catch (err) {
      toStderr(String(err && err.stack ? err.stack : err));
      reply = PREFIX + JSON.stringify({ request_error: `worker crashed: ${err}` });
    }
    process.stdout.write(reply + "\n");
  }
  handleLine.destroy();
}

main().catch((err) => {
  process.stderr.write(`runner.mjs: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});

// Run one benchmark script in Pyodide under Node.js with the project wheel.
//
//   node benchmarks/pyodide_run.mjs --pyodide DIR --wheel FILE SCRIPT [ARGS...]
//
// Loads the npm package `pyodide` from DIR (node_modules/pyodide) with every URL pointing at
// that folder (parity/node/boot.mjs, the parity runner's boot), unpacks the project wheel into Pyodide's
// site-packages, copies SCRIPT into Pyodide's file system and runs it as `__main__` with
// ARGS as sys.argv[1:]. Python's stdout goes to stdout (so `--json` output can be parsed),
// Pyodide's own messages to stderr; the exit status is the script's.
//
// time.process_time is replaced by Node's process.cpuUsage() (user + system CPU time of this
// process): Emscripten's clock() is wall time, which on a shared machine counts the other
// jobs too, while the CPython benchmarks measure CPU time.

import fs from "node:fs";
import path from "node:path";

import { bootPyodide } from "../parity/node/boot.mjs";

function die(message) {
  process.stderr.write(`pyodide_run.mjs: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { rest: [] };
  let i = 0;
  while (i < argv.length && (argv[i] === "--pyodide" || argv[i] === "--wheel")) {
    if (i + 1 >= argv.length) die(`${argv[i]} needs a value`);
    args[argv[i].slice(2)] = argv[i + 1];
    i += 2;
  }
  args.script = argv[i];
  args.rest = argv.slice(i + 1);
  if (!args.pyodide || !args.wheel || !args.script) {
    die("usage: node pyodide_run.mjs --pyodide DIR --wheel FILE SCRIPT [ARGS...]");
  }
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.script)) die(`script ${args.script} not found`);
  const script = fs.readFileSync(path.resolve(args.script), "utf8");
  let pyodide;
  try {
    ({ pyodide } = await bootPyodide(args.pyodide, args.wheel, {
      stdout: (line) => process.stdout.write(line + "\n"),
    }));
  } catch (err) {
    die(err.message);
  }
  pyodide.FS.mkdirTree("/bench");
  const target = "/bench/" + path.basename(args.script);
  pyodide.FS.writeFile(target, script);
  pyodide.globals.set("_bench_argv", pyodide.toPy([target, ...args.rest]));
  const code = pyodide.runPython(`
import runpy, sys, time
from js import process as _node_process

def _node_cpu_s():
    usage = _node_process.cpuUsage()
    return (usage.user + usage.system) / 1e6

time.process_time = _node_cpu_s
sys.argv = list(_bench_argv)
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
    _rc = 0
except SystemExit as e:
    _rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
sys.stdout.flush()
_rc
`);
  process.exitCode = code;
}

main().catch((err) => {
  process.stderr.write(`pyodide_run.mjs: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});

// Pyodide under Node.js from a local folder, with the project wheel unpacked: the one boot
// the parity runner (runner.mjs) and the benchmark runner (benchmarks/pyodide_run.mjs) share.
//
// Every URL Pyodide could load from points at DIR (node_modules/pyodide), so nothing can
// fall back to a CDN. console.log/info/warn go to stderr, so a caller's stdout carries only
// what it writes itself.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import util from "node:util";

export function toStderr(...parts) {
  process.stderr.write(util.format(...parts) + "\n");
}

/** Boot Pyodide from `pyodideDir` and unpack `wheelPath` into its site-packages.
 *  `stdout` receives Python's stdout lines (default: stderr). Returns {pyodide, version,
 *  loadMs} or throws an Error naming what is missing. */
export async function bootPyodide(pyodideDir, wheelPath, { stdout = toStderr } = {}) {
  const dir = path.resolve(pyodideDir) + path.sep;
  const entry = path.join(dir, "pyodide.mjs");
  if (!fs.existsSync(entry)) throw new Error(`${entry} not found: run \`npm ci\` in the repository`);
  if (!fs.existsSync(wheelPath)) throw new Error(`wheel ${wheelPath} not found`);
  const wheel = fs.readFileSync(path.resolve(wheelPath));
  console.log = toStderr;
  console.info = toStderr;
  console.warn = toStderr;
  const started = performance.now();
  const { loadPyodide, version } = await import(pathToFileURL(entry).href);
  const pyodide = await loadPyodide({
    indexURL: dir,
    packageBaseUrl: dir,
    packageCacheDir: dir,
    lockFileURL: path.join(dir, "pyodide-lock.json"),
    cdnUrl: dir,
    stdout,
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  const loadMs = performance.now() - started;
  // A Uint8Array, not the Buffer readFileSync returns (docs/architecture.md §5).
  pyodide.unpackArchive(new Uint8Array(wheel.buffer, wheel.byteOffset, wheel.byteLength), "wheel");
  return { pyodide, version, loadMs };
}

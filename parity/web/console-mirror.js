// Skidpad parity harness: console capture shared by the page and its worker (docs/architecture.md §5).
//
// Not every driver reports the page's console (WebKitWebDriver does not), and a
// Web Worker's console is not the page's at all, so harness.js and worker.js
// each copy every console line and unhandled rejection into the harness log
// themselves. This module is that copy, written once; each side only says
// where a line goes (the page's log, or a message to the page).

const LEVELS = ["log", "info", "warn", "error", "debug"];

// One log line from console arguments: errors with their stack, objects as JSON.
function text(parts) {
  return parts
    .map((p) => {
      if (p instanceof Error) return p.stack || String(p);
      if (typeof p === "string") return p;
      try {
        return JSON.stringify(p);
      } catch (e) {
        return String(p);
      }
    })
    .join(" ");
}

// Send every console call and unhandled rejection in `scope` (window or the
// worker's self) to report(kind, line), where kind is the console level or
// "unhandledrejection"; the console keeps printing as before.
export function mirrorConsole(scope, report) {
  for (const level of LEVELS) {
    const original = console[level].bind(console);
    console[level] = (...args) => {
      report(level, text(args));
      original(...args);
    };
  }
  scope.addEventListener("unhandledrejection", (ev) => report("unhandledrejection", text([ev.reason])));
}

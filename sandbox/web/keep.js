// Skidpad sandbox: what the page keeps in the browser (IndexedDB), ADR 0251.
//
// Database "skidpad-sandbox", version 1, two object stores:
//   laps      keyPath "key" = "<preset>|<surface>|<physics version>" (and "|tire:<id>" on a
//             person's own .tir tire, whose id is the hash of its parameters): the best valid
//             lap for that car, tire, surface and physics: {key, preset, tire ({name, id} or
//             null), surface, physics, engine, lap,
//             time_s, sectors_s, assists, date, recording (the drive's recording text, which
//             claims the lap), ghost: {host_hz, x, y, c, s, d} (pose and distance along the
//             lap after each host step)}
//   settings  one record under the key "settings": {preset, surface, assists, tire (the
//             .tir file the car runs on, {name, bytes}, or null)}
// Everything read back is checked before use (a record of the wrong shape is skipped, never
// trusted): the store is the user's, and another version of the page may have written it.

const DB_NAME = "skidpad-sandbox";
const DB_VERSION = 1;

let dbPromise = null;

function open() {
  if (!dbPromise) {
    dbPromise = new Promise((resolve, reject) => {
      if (!self.indexedDB) {
        reject(new Error("this browser keeps nothing (no IndexedDB)"));
        return;
      }
      const req = indexedDB.open(DB_NAME, DB_VERSION);
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains("laps")) db.createObjectStore("laps", { keyPath: "key" });
        if (!db.objectStoreNames.contains("settings")) db.createObjectStore("settings");
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error || new Error("IndexedDB would not open"));
      req.onblocked = () => reject(new Error("IndexedDB is held by another tab"));
    });
  }
  return dbPromise;
}

function run(store, mode, fn) {
  return open().then(
    (db) =>
      new Promise((resolve, reject) => {
        const tx = db.transaction(store, mode);
        const req = fn(tx.objectStore(store));
        tx.oncomplete = () => resolve(req ? req.result : undefined);
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error || new Error("IndexedDB transaction aborted"));
      }),
  );
}

// a lap on a person's own tire is another car's: its key says which tire (ids are the
// hash of the tire's parameters); a lap on the preset's tire keeps the key it always had
export function lapKey(preset, surface, physics, tire = null) {
  return tire ? `${preset}|${surface}|${physics}|tire:${tire}` : `${preset}|${surface}|${physics}`;
}

// the largest .tir file kept (the engine's reader refuses a larger one: tir.MAX_BYTES)
const MAX_TIRE_BYTES = 1 << 20;
const isTire = (t) => !!t && typeof t === "object" && typeof t.name === "string" && typeof t.id === "string";

const isNum = (v) => typeof v === "number" && Number.isFinite(v);
const isArr = (a, n) => Array.isArray(a) && a.length === n && a.every(isNum);

// a record of the shape this page writes, or null
function checkedLap(r) {
  if (!r || typeof r !== "object") return null;
  if (typeof r.preset !== "string" || typeof r.surface !== "string") return null;
  if (!(Number.isInteger(r.physics) || r.physics === null)) return null;
  if (!isNum(r.time_s) || r.time_s <= 0 || !isArr(r.sectors_s, 3)) return null;
  if (r.tire != null && !isTire(r.tire)) return null;
  if (r.key !== lapKey(r.preset, r.surface, r.physics, r.tire ? r.tire.id : null)) return null;
  const g = r.ghost;
  if (g) {
    const n = Array.isArray(g.x) ? g.x.length : -1;
    if (!(Number.isInteger(g.host_hz) && g.host_hz > 0 && n > 0)) return null;
    if (!["x", "y", "c", "s", "d"].every((k) => isArr(g[k], n))) return null;
  }
  if (r.recording != null && typeof r.recording !== "string") return null;
  return r;
}

export async function allLaps() {
  const rows = await run("laps", "readonly", (s) => s.getAll());
  return (rows || []).map(checkedLap).filter(Boolean);
}

export async function getLap(key) {
  return checkedLap(await run("laps", "readonly", (s) => s.get(key)));
}

export function putLap(record) {
  return run("laps", "readwrite", (s) => s.put(record));
}

export async function getSettings() {
  const s = await run("settings", "readonly", (st) => st.get("settings"));
  if (!s || typeof s !== "object") return null;
  const out = {};
  if (typeof s.preset === "string") out.preset = s.preset;
  if (typeof s.surface === "string") out.surface = s.surface;
  if (s.assists && typeof s.assists === "object") {
    out.assists = {};
    for (const k of ["abs", "traction_control", "stability_control"]) {
      if (typeof s.assists[k] === "boolean") out.assists[k] = s.assists[k];
    }
  }
  const t = s.tire;
  if (t && typeof t.name === "string" && t.bytes instanceof Uint8Array && t.bytes.length <= MAX_TIRE_BYTES) {
    out.tire = { name: t.name, bytes: t.bytes };
  }
  return out;
}

export function putSettings(settings) {
  return run("settings", "readwrite", (s) => s.put(settings, "settings"));
}

// Skidpad sandbox: archived physics, fetched only when a loaded recording needs one (ADR 0206).
//
// The page's wheel leaves the archive of earlier physics out, so what the page downloads at
// start stays the size it was. When `skidpad verify` of a loaded file (PageAPI.verify) needs
// a version this page does not have yet, Python answers {needs_physics: N} instead of a
// verdict; this module fetches that one version's zip (physics/vN.zip, from the same
// loopback server), shows its progress, hands it to Python (PageAPI.add_physics), and asks
// again. The runs already made are kept by Python between the calls, so nothing replays
// twice. An archived version then runs in this worker's interpreter under its own package
// names, isolated from today's engine (replay/archive_inprocess.py).

// at most this many fetches for one file: one per archived version
const MAX_FETCHES = 16;

async function fetchPhysics(number, send) {
  const stage = (loaded, total) =>
    send({
      type: "verifying",
      n: loaded,
      total,
      stage: `fetching physics ${number} (${Math.round(loaded / 1024)} of ${Math.round(total / 1024)} kB)`,
    });
  const response = await fetch(`physics/v${number}.zip`);
  if (!response.ok) throw new Error(`physics ${number}: HTTP ${response.status}`);
  const total = Number(response.headers.get("Content-Length")) || 0;
  const reader = response.body.getReader();
  const parts = [];
  let loaded = 0;
  stage(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    stage(loaded, total);
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// PageAPI.verify of one file, fetching archived physics as it asks for them; with `lap` (a
// kept lap's recording) Python also cuts that lap's ghost from the replay, under the
// physics the verdict names.
export async function verifyWithArchive(py, name, bytes, progress, send, lap = null) {
  for (let fetched = 0; fetched <= MAX_FETCHES; fetched++) {
    const text = lap == null ? py.verify(name, bytes, progress) : py.verify(name, bytes, progress, lap);
    const out = JSON.parse(text);
    if (out.needs_physics == null) return text;
    const zip = await fetchPhysics(out.needs_physics, send);
    py.add_physics(out.needs_physics, zip);
    send({ type: "verifying", stage: `replaying under physics ${out.needs_physics} (archived)` });
  }
  throw new Error("verify: too many archived physics versions asked for");
}

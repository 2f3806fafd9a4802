// Skidpad sandbox: drawing (ADR 0252). The circuit with grass beyond the track edge and the
// track limit marked, a car whose heading reads at a glance, a camera that looks ahead with
// speed, and the minimap of the whole circuit. Nothing here computes physics.

const GRASS = "#2f5d2a";
const GRASS_STRIPE = "#376b31";
const TRACK = "#58585c";
// the camera: px per m standing and at speed, and how far ahead it looks (s of travel)
const SCALE_SLOW = 7;
const SCALE_FAST = 5;
const FAST_MPS = 40;
const LOOK_AHEAD_S = 1.1;
// the camera's easing time constant in simulated s (12 % of the way a frame at 60 frames/s)
const EASE_S = 0.13;

function strokePath(ctx, xs, ys, close) {
  ctx.beginPath();
  ctx.moveTo(xs[0], ys[0]);
  for (let i = 1; i < xs.length; i++) ctx.lineTo(xs[i], ys[i]);
  if (close) ctx.closePath();
  ctx.stroke();
}

function offsetLine(track, d) {
  return [track.x.map((x, i) => x + d * track.nx[i]), track.y.map((y, i) => y + d * track.ny[i])];
}

// Mown stripes, 8 m wide, every 16 m along x in world units: a solid fill and a rectangle per
// stripe on screen. (A repeating pattern under the world transform looked the same but cost
// about 10 ms a frame to sample in a software-rendered canvas; these rectangles, under 1 ms.)
const STRIPE_M = 8;
function fillGrass(ctx, b) {
  ctx.fillStyle = GRASS;
  ctx.fillRect(b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0);
  ctx.fillStyle = GRASS_STRIPE;
  for (let x = Math.floor(b.x0 / (2 * STRIPE_M)) * 2 * STRIPE_M; x < b.x1; x += 2 * STRIPE_M) {
    ctx.fillRect(x, b.y0, STRIPE_M, b.y1 - b.y0);
  }
}

// The circuit's lines cut into pieces of PIECE points, each with its bounding box, so a frame
// strokes only the pieces on screen, not the whole 2,400-point circuit five times (the
// track, two edges, two dashed limits), most of it off screen.
const PIECE = 48;

function cutIntoPieces(xs, ys, pad) {
  const n = xs.length;
  const out = [];
  let along = 0; // the length of the line before the piece: dashes continue across pieces
  for (let i0 = 0; i0 < n; i0 += PIECE) {
    const idx = [];
    for (let i = i0; i <= Math.min(i0 + PIECE, n); i++) idx.push(i % n); // the last closes the loop
    const px = idx.map((i) => xs[i]);
    const py = idx.map((i) => ys[i]);
    out.push({
      xs: px, ys: py, along,
      x0: Math.min(...px) - pad, x1: Math.max(...px) + pad,
      y0: Math.min(...py) - pad, y1: Math.max(...py) + pad,
    });
    for (let k = 1; k < px.length; k++) along += Math.hypot(px[k] - px[k - 1], py[k] - py[k - 1]);
  }
  return out;
}

let edges = null;
function trackEdges(track) {
  if (!edges || edges.track !== track) {
    const pad = track.width; // covers the track's own width and the round caps
    const cut = ([xs, ys]) => cutIntoPieces(xs, ys, pad);
    edges = {
      track,
      centre: cut([track.x, track.y]),
      left: cut(offsetLine(track, track.width / 2)),
      right: cut(offsetLine(track, -track.width / 2)),
      limitL: cut(offsetLine(track, track.limit)),
      limitR: cut(offsetLine(track, -track.limit)),
    };
  }
  return edges;
}

function onScreen(p, b) {
  return p.x1 >= b.x0 && p.x0 <= b.x1 && p.y1 >= b.y0 && p.y0 <= b.y1;
}

// the pieces of a line that the screen shows (round caps join them seamlessly; a dashed
// line's dashes run on from one piece to the next)
function strokePieces(ctx, pieces, bounds, dashed) {
  for (const p of pieces) {
    if (!onScreen(p, bounds)) continue;
    if (dashed) ctx.lineDashOffset = p.along;
    strokePath(ctx, p.xs, p.ys, false);
  }
}

// The world behind the car: grass everywhere, the track over it, white edge lines, and the
// track limit (where a wheel beyond it invalidates the lap) as a dashed red line on the grass.
export function drawWorld(ctx, track, bounds) {
  const e = trackEdges(track);
  fillGrass(ctx, bounds);
  ctx.lineJoin = "round";
  ctx.lineCap = "round";
  ctx.strokeStyle = TRACK;
  ctx.lineWidth = track.width;
  strokePieces(ctx, e.centre, bounds, false);
  ctx.strokeStyle = "#f2f2f2";
  ctx.lineWidth = 0.3;
  strokePieces(ctx, e.left, bounds, false);
  strokePieces(ctx, e.right, bounds, false);
  if (track.limit > track.width / 2) {
    ctx.save();
    ctx.strokeStyle = "rgba(230, 60, 60, 0.8)";
    ctx.lineWidth = 0.2;
    ctx.lineCap = "butt";
    ctx.setLineDash([1.5, 1.5]);
    strokePieces(ctx, e.limitL, bounds, true);
    strokePieces(ctx, e.limitR, bounds, true);
    ctx.restore();
  }
  ctx.lineCap = "butt";
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

// The car in its body frame (x forward): a body tapering to a pointed nose, a dark
// windscreen towards the front, yellow headlights and a white arrow on the roof, so the
// heading reads at a glance; wheels at the contact points; the driven car also gets a pointer
// ahead of its nose of constant screen size (``marker``).
export function drawCar(ctx, wheels, pose, wheelAngles, alpha, colour, marker = false) {
  const [x, y, c, s] = pose;
  ctx.save();
  ctx.globalAlpha = alpha;
  ctx.transform(c, s, -s, c, x, y);
  const front = wheels[0][0] + 0.7;
  const rear = wheels[2][0] - 0.6;
  const half = Math.max(wheels[0][1], wheels[2][1]) + 0.12;
  const len = front - rear;
  ctx.fillStyle = "#111";
  wheels.forEach(([lx, ly], i) => {
    ctx.save();
    ctx.translate(lx, ly);
    ctx.rotate(wheelAngles ? wheelAngles[i] : 0);
    ctx.fillRect(-0.33, -0.13, 0.66, 0.26);
    ctx.restore();
  });
  ctx.fillStyle = colour;
  ctx.beginPath();
  ctx.moveTo(rear, -half);
  ctx.lineTo(front - 0.35 * len, -half);
  ctx.lineTo(front, -0.35 * half);
  ctx.lineTo(front, 0.35 * half);
  ctx.lineTo(front - 0.35 * len, half);
  ctx.lineTo(rear, half);
  ctx.closePath();
  ctx.fill();
  // a light outline of constant screen width, so the car stands out on track and grass
  const px = 1 / Math.hypot(ctx.getTransform().a, ctx.getTransform().b);
  ctx.strokeStyle = "rgba(255,255,255,0.9)";
  ctx.lineWidth = 1.5 * px;
  ctx.stroke();
  ctx.fillStyle = "rgba(20, 30, 45, 0.85)"; // windscreen
  ctx.fillRect(front - 0.45 * len, -0.7 * half, 0.12 * len, 1.4 * half);
  ctx.fillStyle = "#ffe680"; // headlights
  ctx.fillRect(front - 0.18, -0.32 * half - 0.2, 0.18, 0.25);
  ctx.fillRect(front - 0.18, 0.32 * half - 0.05, 0.18, 0.25);
  ctx.fillStyle = "rgba(255,255,255,0.9)"; // arrow on the roof
  const ax = rear + 0.3 * len;
  ctx.beginPath();
  ctx.moveTo(ax + 0.3 * len, 0);
  ctx.lineTo(ax, 0.55 * half);
  ctx.lineTo(ax + 0.08 * len, 0);
  ctx.lineTo(ax, -0.55 * half);
  ctx.closePath();
  ctx.fill();
  if (marker) {
    // a pointer ahead of the nose, of constant screen size: the heading at a glance, at speed
    const m = 9 * px;
    ctx.fillStyle = colour;
    ctx.strokeStyle = "rgba(255,255,255,0.9)";
    ctx.beginPath();
    ctx.moveTo(front + 0.6 + 1.6 * m, 0);
    ctx.lineTo(front + 0.6, m);
    ctx.lineTo(front + 0.6 + 0.5 * m, 0);
    ctx.lineTo(front + 0.6, -m);
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
  }
  ctx.restore();
}

// The camera: it zooms out and looks ahead along the car's velocity as speed grows, eased
// so a spin does not swing the view. It eases over simulated time, not frames: the same
// drive is framed the same way at any frame rate, and a view that has not changed (a paused
// drive, a page waiting for its test) leaves the camera, and so the picture, where it is.
export class Camera {
  constructor() {
    this.x = null;
    this.y = null;
    this.t = null; // the simulated time of the view followed last (s)
    this.scale = SCALE_SLOW;
  }

  follow(view, width, height) {
    const speed = Math.max(0, view.speed);
    const k = Math.min(1, speed / FAST_MPS);
    const scale = SCALE_SLOW + (SCALE_FAST - SCALE_SLOW) * k;
    // ahead along the heading (the car's travel), never so far that the car leaves the view
    const room = (0.32 * Math.min(width, height)) / scale;
    const ahead = Math.min(room, speed * LOOK_AHEAD_S);
    const dir = view.car && view.car.vx < 0 ? -1 : 1;
    const tx = view.x + dir * view.c * ahead;
    const ty = view.y + dir * view.s * ahead;
    const dt = this.t === null ? 0 : view.time_s - this.t;
    this.t = view.time_s;
    const resized = width !== this.width || height !== this.height;
    this.width = width;
    this.height = height;
    if (this.x === null || dt < 0 || resized || Math.hypot(tx - this.x, ty - this.y) > 200) {
      // a new drive, a jump, or a new window size (whose look-ahead differs, and no
      // simulated time may pass to ease into it): no easing across it
      this.x = tx;
      this.y = ty;
      this.scale = scale;
    } else {
      const ease = 1 - Math.exp(-dt / EASE_S);
      this.x += (tx - this.x) * ease;
      this.y += (ty - this.y) * ease;
      this.scale += (scale - this.scale) * ease;
    }
  }

  // world to screen, y up
  apply(ctx, width, height) {
    const k = this.scale;
    ctx.setTransform(k, 0, 0, -k, width / 2 - k * this.x, height / 2 + k * this.y);
  }

  // the world rectangle the screen shows (for the grass fill)
  bounds(width, height) {
    const hw = width / 2 / this.scale + 2;
    const hh = height / 2 / this.scale + 2;
    return { x0: this.x - hw, x1: this.x + hw, y0: this.y - hh, y1: this.y + hh };
  }
}

// The minimap: the whole circuit fitted into its canvas, the start/finish line, the ghost
// (blue) and the car (red, with its heading).
export class Minimap {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.track = null;
  }

  fit(track) {
    const xs = track.x;
    const ys = track.y;
    this.box = {
      x0: Math.min(...xs) - track.limit,
      x1: Math.max(...xs) + track.limit,
      y0: Math.min(...ys) - track.limit,
      y1: Math.max(...ys) + track.limit,
    };
    this.track = track;
  }

  drawCircuit(track, w, h, k, ox, oy, dpr) {
    const image = document.createElement("canvas");
    image.width = w;
    image.height = h;
    const ctx = image.getContext("2d");
    ctx.setTransform(k, 0, 0, -k, ox, oy);
    ctx.lineJoin = "round";
    ctx.strokeStyle = "#8a8a90";
    ctx.lineWidth = Math.max(track.width, 3 * dpr / k);
    strokePath(ctx, track.x, track.y, true);
    const fin = track.lines.find((l) => l.name === "finish") || track.lines[0];
    if (fin) {
      const hl = track.limit * 1.6;
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 2 * dpr / k;
      ctx.beginPath();
      ctx.moveTo(fin.x + fin.ty * hl, fin.y - fin.tx * hl);
      ctx.lineTo(fin.x - fin.ty * hl, fin.y + fin.tx * hl);
      ctx.stroke();
    }
    return image;
  }

  draw(track, car, ghostPose) {
    const cv = this.canvas;
    const dpr = self.devicePixelRatio || 1;
    const w = Math.round(cv.clientWidth * dpr);
    const h = Math.round(cv.clientHeight * dpr);
    if (!w || !h) return;
    if (cv.width !== w || cv.height !== h) {
      cv.width = w;
      cv.height = h;
    }
    if (this.track !== track) this.fit(track);
    const b = this.box;
    const pad = 6 * dpr;
    const k = Math.min((w - 2 * pad) / (b.x1 - b.x0), (h - 2 * pad) / (b.y1 - b.y0));
    const ox = (w - k * (b.x1 - b.x0)) / 2 - k * b.x0;
    const oy = (h + k * (b.y1 - b.y0)) / 2 + k * b.y0;
    // the circuit does not move: drawn once per size into a canvas of its own, then copied
    if (!this.circuit || this.circuit.track !== track || this.circuit.w !== w || this.circuit.h !== h) {
      this.circuit = { track, w, h, image: this.drawCircuit(track, w, h, k, ox, oy, dpr) };
    }
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.drawImage(this.circuit.image, 0, 0);
    ctx.setTransform(k, 0, 0, -k, ox, oy);
    const dot = (pose, colour, r) => {
      ctx.fillStyle = colour;
      ctx.beginPath();
      ctx.arc(pose[0], pose[1], (r * dpr) / k, 0, 2 * Math.PI);
      ctx.fill();
      // a tick in the heading's direction
      ctx.strokeStyle = colour;
      ctx.lineWidth = (2 * dpr) / k;
      ctx.beginPath();
      ctx.moveTo(pose[0], pose[1]);
      ctx.lineTo(pose[0] + ((pose[2] * 2.4 * r * dpr) / k), pose[1] + ((pose[3] * 2.4 * r * dpr) / k));
      ctx.stroke();
    };
    if (ghostPose) dot(ghostPose, "#7cc4ff", 3.5);
    if (car) dot(car, "#ff3b30", 4);
  }
}

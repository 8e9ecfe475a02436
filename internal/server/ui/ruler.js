// The time ruler over the flame chart: ticks at nice intervals (1, 2 or 5
// × 10^k) labelled in ms or s, following the flame chart's window, with
// the selected range shaded. ticks() is pure (tested by ruler.test.mjs
// under node --test).

const HEIGHT = 20;

// niceStep returns the smallest 1, 2 or 5 × 10^k at least min (> 0).
export function niceStep(min) {
  if (!(min > 0) || !Number.isFinite(min)) return 1;
  let p = Math.pow(10, Math.floor(Math.log10(min)));
  for (;;) {
    for (const m of [1, 2, 5]) {
      // Compare with a relative tolerance: 0.1 × 3 is 0.30000000000000004.
      if (m * p >= min * (1 - 1e-9)) return m * p;
    }
    p *= 10;
  }
}

// decimals returns how many decimals show a multiple of step exactly.
function decimals(step) {
  return Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
}

// ticks returns the ticks of the window win ({from, to} in µs) drawn at
// width CSS pixels, at least minPx apart: {step (µs), unit ('ms' or 's'),
// ticks: [{t (µs), x (px), label}]}. Labels are in ms, or in s when the
// window spans a second or more and the step is 100 ms or more; a step of
// 1 s or more shows whole seconds.
export function ticks(win, width, minPx = 90) {
  const span = win.to - win.from;
  if (!(span > 0) || !(width > 0)) return { step: 0, unit: 'ms', ticks: [] };
  const step = niceStep((span * minPx) / width);
  const unit = step >= 1e5 && span >= 1e6 ? 's' : 'ms';
  const div = unit === 's' ? 1e6 : 1e3;
  const dec = decimals(step / div);
  const out = [];
  const first = Math.ceil(win.from / step - 1e-9);
  for (let k = first; k * step <= win.to + step * 1e-9; k++) {
    const t = k * step;
    const v = t / div;
    const label = (Math.abs(v) < (step / div) * 1e-6 ? 0 : v).toFixed(dec) + ' ' + unit;
    out.push({ t, x: ((t - win.from) / span) * width, label });
  }
  return { step, unit, ticks: out };
}

// drawGrid draws the ruler's ticks as faint vertical lines over a canvas
// of the same window and width (the flame chart, the event tracks).
export function drawGrid(ctx, win, width, height) {
  if (!win) return;
  const dpr = window.devicePixelRatio || 1;
  ctx.fillStyle = '#efeff3';
  for (const k of ticks(win, width).ticks) ctx.fillRect(Math.round(k.x * dpr) / dpr, 0, 1, height);
}

export class Ruler {
  // opts: {canvas, widthOf(): the flame chart's width in CSS pixels}
  constructor(opts) {
    this.opts = opts;
    this.canvas = opts.canvas;
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.win = null;
    this.range = null;
    this.last = null;
  }

  width() { return Math.max(1, this.opts.widthOf()); }

  setWindow(win) { this.win = win; this.draw(); }
  setRange(range) { this.range = range; this.draw(); }

  draw() {
    const dpr = window.devicePixelRatio || 1;
    const width = this.width();
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(HEIGHT * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(HEIGHT * dpr);
      this.canvas.style.width = width + 'px';
      this.canvas.style.height = HEIGHT + 'px';
    }
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#f7f7f9';
    ctx.fillRect(0, 0, width, HEIGHT);
    if (!this.win) return;
    const span = this.win.to - this.win.from;
    const xOf = (t) => ((t - this.win.from) / span) * width;
    // The selected range: shaded, with its edges.
    if (this.range) {
      const a = xOf(this.range.from), b = xOf(this.range.to);
      if (b > 0 && a < width) {
        ctx.fillStyle = 'rgba(11, 87, 208, 0.16)';
        ctx.fillRect(Math.max(0, a), 0, Math.min(width, b) - Math.max(0, a), HEIGHT);
        ctx.fillStyle = '#0b57d0';
        if (a >= 0) ctx.fillRect(Math.round(a * dpr) / dpr, 0, 1, HEIGHT);
        if (b <= width) ctx.fillRect(Math.round(b * dpr) / dpr - 1, 0, 1, HEIGHT);
      }
    }
    const tk = ticks(this.win, width);
    this.last = tk;
    ctx.fillStyle = '#8a8a94';
    for (const k of tk.ticks) ctx.fillRect(Math.round(k.x * dpr) / dpr, HEIGHT - 6, 1, 6);
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.fillStyle = '#4a4a52';
    for (const k of tk.ticks) {
      const w = ctx.measureText(k.label).width;
      const x = Math.min(k.x + 3, width - w - 2);
      if (x < 0) continue;
      ctx.fillText(k.label, x, 3);
    }
    ctx.fillStyle = '#e3e3e8';
    ctx.fillRect(0, HEIGHT - 1, width, 1);
  }
}

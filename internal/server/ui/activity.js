// The category activity graph: the share of each category over the
// thread's time, stacked (Idle left blank), binned per pixel by the
// server. The flame chart's window shows as a lighter band; dragging
// selects a time range; hovering shows the stack of the pixel.

import { get } from './api.js';
import { categoryColor, fmtMs, displayName } from './format.js';
import { showTooltip } from './flamechart.js';

export class ActivityGraph {
  // opts: {canvas, tooltip, categories, onRange(from, to), onError}
  constructor(opts) {
    Object.assign(this, opts);
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.colors = this.categories.map((c) => categoryColor(c.color));
    this.data = null;
    this.win = null;
    this.range = null;
    this.stackCache = new Map();
    this.listen();
  }

  async setThread(t, bounds) {
    this.t = t;
    this.bounds = bounds;
    this.stackCache.clear();
    const width = this.width();
    this.data = await get('activity', { t, from: bounds.min.toFixed(3), to: bounds.max.toFixed(3), width });
    this.draw();
  }

  width() { return Math.max(1, this.canvas.parentElement.clientWidth); }

  xOf(time) { return (time - this.bounds.min) / (this.bounds.max - this.bounds.min) * this.width(); }
  timeOf(x) { return this.bounds.min + x / this.width() * (this.bounds.max - this.bounds.min); }

  draw() {
    const dpr = window.devicePixelRatio || 1;
    const width = this.width(), height = this.canvas.parentElement.clientHeight || 48;
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.width = width + 'px';
      this.canvas.style.height = height + 'px';
    }
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    if (this.data) drawShares(ctx, this.data, this.categories, this.colors, width, height);
    // The flame chart's window and the selected range.
    ctx.fillStyle = 'rgba(11, 87, 208, 0.10)';
    if (this.win && (this.win.from > this.bounds.min || this.win.to < this.bounds.max)) {
      const a = this.xOf(this.win.from), b = this.xOf(this.win.to);
      ctx.fillRect(a, 0, Math.max(1, b - a), height);
    }
    if (this.range) {
      const a = this.xOf(this.range.from), b = this.xOf(this.range.to);
      ctx.fillStyle = 'rgba(255, 255, 255, 0.65)';
      ctx.fillRect(0, 0, Math.max(0, a), height);
      ctx.fillRect(b, 0, Math.max(0, width - b), height);
      ctx.strokeStyle = '#0b57d0';
      ctx.strokeRect(a + 0.5, 0.5, Math.max(1, b - a) - 1, height - 1);
    }
  }

  setWindow(win) { this.win = win; this.draw(); }
  setRange(range) { this.range = range; this.draw(); }

  listen() {
    const c = this.canvas;
    let drag = null;
    const xAt = (ev) => ev.clientX - c.getBoundingClientRect().left;
    c.addEventListener('mousedown', (ev) => { drag = { x0: xAt(ev) }; });
    window.addEventListener('mousemove', (ev) => {
      if (drag) {
        const a = Math.min(drag.x0, xAt(ev)), b = Math.max(drag.x0, xAt(ev));
        if (b - a >= 2) { this.range = { from: this.timeOf(a), to: this.timeOf(b) }; this.draw(); }
        return;
      }
      if (ev.target === c) this.hoverAt(ev, xAt(ev));
    });
    window.addEventListener('mouseup', () => {
      if (!drag) return;
      drag = null;
      if (this.range && this.onRange) this.onRange(this.range);
    });
    c.addEventListener('mouseleave', () => { this.tooltip.hidden = true; });
  }

  async hoverAt(ev, x) {
    const d = this.data;
    if (!d) return;
    const px = Math.floor(x / this.width() * d.stack.length);
    const id = d.stack[px];
    const pos = { x: ev.clientX, y: ev.clientY };
    const at = `at ${fmtMs(this.timeOf(x) / 1000)}`;
    if (id === undefined || id < 0) { showTooltip(this.tooltip, pos, [['Idle', 'b'], [at, 'cat']]); return; }
    let p = this.stackCache.get(id);
    if (!p) { p = get('stack', { t: this.t, id }); this.stackCache.set(id, p); }
    this.hoverID = id;
    const st = await p;
    if (this.hoverID !== id) return;
    const frames = st.frames.slice(-12).reverse().map((f) => [displayName(f), '']);
    if (st.frames.length > 12) frames.push([`… ${st.frames.length - 12} more callers`, 'cat']);
    showTooltip(this.tooltip, pos, [[at, 'cat'], ...frames]);
  }
}

// drawShares paints an Activity answer: per pixel, the categories' shares
// stacked from the bottom (Idle left blank), one path per category.
export function drawShares(ctx, d, categories, colors, width, height) {
  const n = d.stack.length, sx = width / n;
  const base = new Float32Array(n);
  for (let c = 0; c < d.shares.length; c++) {
    if (categories[c].name === 'Idle') continue;
    const s = d.shares[c];
    ctx.fillStyle = colors[c];
    ctx.beginPath();
    let any = false;
    for (let x = 0; x < n; x++) {
      const h = s[x] * (height - 2);
      if (h <= 0) continue;
      any = true;
      ctx.rect(x * sx, height - base[x] - h, sx, h);
      base[x] += h;
    }
    if (any) ctx.fill();
  }
}

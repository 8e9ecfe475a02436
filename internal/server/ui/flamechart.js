// The flame chart: the thread's flame-chart entries in time order, drawn on
// a canvas from the boxes the server sends for the window and width (runs
// of entries under a pixel come merged). Zoom: wheel, W/S, +/-; pan: drag,
// shift+wheel, A/D, arrows; hover for details; click to select;
// double-click to zoom to a box.

import { get } from './api.js';
import { layout, hit, zoom, pan } from './view.js';
import { categoryColor, darker, truncateToWidth, fmtMs, location, displayName } from './format.js';
import { drawGrid } from './ruler.js';

const ROW = 16;
const MAX_CANVAS = 16000; // CSS px

export class FlameChart {
  // opts: {canvas, scroller, tooltip, categories, onWindow(win), onSelect(entry)}
  constructor(opts) {
    Object.assign(this, opts);
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.data = null;
    this.rects = [];
    this.search = '';
    this.selected = -1;
    this.hover = -1;
    this.seq = 0;
    this.renders = [];
    this.widths = new Map();
    this.entryCache = new Map();
    this.colors = this.categories.map((c) => categoryColor(c.color));
    this.merged = this.colors.map((c) => darker(c, 0.8));
    this.faded = this.colors.map((c) => mix(c, '#ffffff', 0.7));
    this.listen();
  }

  // setThread resets the chart for a thread with window bounds (µs).
  setThread(t, bounds, win) {
    this.t = t;
    this.bounds = bounds;
    this.win = win || { from: bounds.min, to: bounds.max };
    this.data = null;
    this.selected = -1;
    this.entryCache.clear();
    return this.fetch();
  }

  width() { return Math.max(1, this.scroller.clientWidth); }

  // fetch asks the server for the boxes of the current window and draws
  // them when they arrive (a later request wins).
  async fetch() {
    const seq = ++this.seq;
    const win = { ...this.win };
    const data = await get('flame', { t: this.t, from: win.from.toFixed(3), to: win.to.toFixed(3), width: this.width() });
    if (seq !== this.seq) return false;
    this.data = data;
    this.draw();
    return true;
  }

  setWindow(win, fetch = true) {
    this.win = win;
    this.draw();
    if (this.onWindow) this.onWindow(win);
    if (fetch) {
      clearTimeout(this.fetchTimer);
      this.fetchTimer = setTimeout(() => this.fetch().catch((e) => this.onError && this.onError(e)), 30);
    }
  }

  measure(s) {
    let w = this.widths.get(s);
    if (w === undefined) {
      w = this.ctx.measureText(s).width;
      if (this.widths.size > 20000) this.widths.clear();
      this.widths.set(s, w);
    }
    return w;
  }

  // draw paints the boxes of the current data in the current window.
  draw() {
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const width = this.width();
    const levels = this.data ? this.data.levels : 0;
    const height = Math.max(this.scroller.clientHeight, Math.min(MAX_CANVAS, (levels + 1) * ROW));
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
    drawGrid(ctx, this.win, width, height);
    if (!this.data) return;
    const d = this.data;
    // Cull vertically to what the scroller shows.
    const top = this.scroller.scrollTop, bottom = top + this.scroller.clientHeight;
    const rects = layout(d, this.win, width, dpr, ROW).filter((r) => r.y + ROW >= top && r.y <= bottom);
    this.rects = rects;
    const q = this.search.toLowerCase();
    const match = q ? d.names.map((n) => n.toLowerCase().includes(q)) : null;
    // Fill, switching fillStyle only when it changes: sort by colour key.
    const key = (r) => {
      const i = r.i, c = d.cat[i];
      if (d.id[i] < 0) return q ? `f${c}` : `m${c}`;
      if (match && !match[d.name[i]]) return `f${c}`;
      return `c${c}`;
    };
    const groups = new Map();
    for (const r of rects) {
      const k = key(r);
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(r);
    }
    for (const [k, g] of groups) {
      const c = +k.slice(1);
      ctx.fillStyle = k[0] === 'c' ? this.colors[c] : k[0] === 'm' ? this.merged[c] : this.faded[c];
      for (const r of g) ctx.fillRect(r.x, r.y, r.w, r.h);
    }
    // Labels.
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#1b1b1f';
    for (const r of rects) {
      if (r.w < 24 || d.id[r.i] < 0) continue;
      const name = d.names[d.name[r.i]] || '(anonymous)';
      const x = Math.max(r.x, 0) + 3;
      const w = Math.min(r.x + r.w, width) - x - 3;
      const label = truncateToWidth(name, w, (s) => this.measure(s));
      if (label) ctx.fillText(label, x, r.y + r.h / 2 + 0.5);
    }
    // Selection and hover outlines.
    for (const [id, color] of [[this.hover, '#444'], [this.selected, '#0b57d0']]) {
      if (id < 0) continue;
      for (const r of rects) {
        if (d.id[r.i] !== id) continue;
        ctx.strokeStyle = color;
        ctx.lineWidth = 1.5;
        ctx.strokeRect(r.x + 0.75, r.y + 0.75, Math.max(r.w - 1.5, 0.5), r.h - 1.5);
      }
    }
    const ms = performance.now() - t0;
    this.renders.push(ms);
    if (this.renders.length > 1000) this.renders.splice(0, 500);
  }

  // drawn lists what the last draw showed: every box with its entry id
  // (−1 merged), level, start, duration (µs) and name.
  drawn() {
    const d = this.data;
    if (!d) return [];
    return this.rects.map((r) => ({
      id: d.id[r.i], level: d.level[r.i], start: d.start[r.i], dur: d.dur[r.i],
      name: d.name[r.i] >= 0 ? d.names[d.name[r.i]] : null, count: d.count[r.i], x: r.x, w: r.w,
    }));
  }

  boxAt(ev) {
    const b = this.canvas.getBoundingClientRect();
    const k = hit(this.rects, ev.clientX - b.left, ev.clientY - b.top);
    return k < 0 ? null : this.rects[k];
  }

  async entry(id) {
    let p = this.entryCache.get(id);
    if (!p) {
      p = get('entry', { t: this.t, id });
      this.entryCache.set(id, p);
      if (this.entryCache.size > 500) this.entryCache.delete(this.entryCache.keys().next().value);
    }
    return p;
  }

  listen() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const b = c.getBoundingClientRect();
      const at = (ev.clientX - b.left) / b.width;
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        const delta = (ev.shiftKey ? ev.deltaY : ev.deltaX) / b.width * (this.win.to - this.win.from);
        this.setWindow(pan(this.win, delta, this.bounds));
      } else {
        this.setWindow(zoom(this.win, at, Math.pow(1.0015, ev.deltaY), this.bounds));
      }
    }, { passive: false });
    c.addEventListener('mousedown', (ev) => {
      drag = { x: ev.clientX, win: this.win, moved: false };
    });
    window.addEventListener('mousemove', (ev) => {
      if (drag) {
        const dx = ev.clientX - drag.x;
        if (Math.abs(dx) > 2) drag.moved = true;
        if (drag.moved) {
          const delta = -dx / this.width() * (drag.win.to - drag.win.from);
          this.setWindow(pan(drag.win, delta, this.bounds));
        }
        return;
      }
      if (ev.target === c) this.hoverAt(ev);
    });
    window.addEventListener('mouseup', (ev) => {
      if (drag && !drag.moved && ev.target === c) this.clickAt(ev);
      drag = null;
    });
    c.addEventListener('mouseleave', () => { this.hover = -1; this.tooltip.hidden = true; this.draw(); });
    c.addEventListener('dblclick', (ev) => {
      const r = this.boxAt(ev);
      if (!r) return;
      const d = this.data, s = d.start[r.i], e = s + d.dur[r.i], pad = (e - s) * 0.05;
      this.setWindow(zoomTo(s - pad, e + pad, this.bounds));
    });
    c.tabIndex = 0;
    c.addEventListener('keydown', (ev) => this.key(ev));
    this.scroller.addEventListener('scroll', () => this.draw());
  }

  key(ev) {
    const span = this.win.to - this.win.from;
    const k = ev.key.toLowerCase();
    if (k === 'w' || k === '+' || k === '=') this.setWindow(zoom(this.win, 0.5, 0.8, this.bounds));
    else if (k === 's' || k === '-') this.setWindow(zoom(this.win, 0.5, 1.25, this.bounds));
    else if (k === 'a' || k === 'arrowleft') this.setWindow(pan(this.win, -span * 0.1, this.bounds));
    else if (k === 'd' || k === 'arrowright') this.setWindow(pan(this.win, span * 0.1, this.bounds));
    else if (k === '0') this.setWindow({ from: this.bounds.min, to: this.bounds.max });
    else return;
    ev.preventDefault();
  }

  async hoverAt(ev) {
    const r = this.boxAt(ev);
    const d = this.data;
    const id = r ? d.id[r.i] : -1;
    if (id !== this.hover) { this.hover = id; this.draw(); }
    if (!r) { this.tooltip.hidden = true; return; }
    const pos = { x: ev.clientX, y: ev.clientY };
    if (id < 0) {
      showTooltip(this.tooltip, pos, [[`${d.count[r.i]} entries under a pixel`, 'b'], [fmtMs(d.dur[r.i] / 1000), '']]);
      return;
    }
    const e = await this.entry(id);
    if (this.hover !== id) return;
    const cat = e.category ? `${e.category}` : '';
    showTooltip(this.tooltip, pos, [
      [displayName(e), 'b'],
      [location(e), 'loc'],
      [`total ${fmtMs(e.durUs / 1000)} · self ${fmtMs(e.selfUs / 1000)}`, ''],
      [`${cat} · at ${fmtMs(e.startUs / 1000)}`, 'cat'],
    ]);
  }

  async clickAt(ev) {
    const r = this.boxAt(ev);
    const id = r ? this.data.id[r.i] : -1;
    this.selected = id;
    this.draw();
    if (id >= 0 && this.onSelect) this.onSelect(await this.entry(id));
  }
}

function zoomTo(from, to, bounds) {
  return { from: Math.max(bounds.min, from), to: Math.min(bounds.max, Math.max(to, from + 0.001)) };
}

// showTooltip fills the tooltip with lines of text (never HTML) near pos.
export function showTooltip(tip, pos, lines) {
  while (tip.firstChild) tip.firstChild.remove();
  for (const [text, cls] of lines) {
    if (!text) continue;
    const div = document.createElement('div');
    if (cls) div.className = cls;
    div.textContent = text.length > 300 ? text.slice(0, 300) + '…' : text;
    tip.append(div);
  }
  tip.hidden = false;
  const w = tip.offsetWidth, h = tip.offsetHeight;
  tip.style.left = Math.min(pos.x + 14, window.innerWidth - w - 4) + 'px';
  tip.style.top = Math.min(pos.y + 14, window.innerHeight - h - 4) + 'px';
}

function mix(a, b, f) {
  const pa = parseInt(a.slice(1), 16), pb = parseInt(b.slice(1), 16);
  const ch = (s) => Math.round(((pa >> s) & 255) * (1 - f) + ((pb >> s) & 255) * f);
  return '#' + ((1 << 24) | (ch(16) << 16) | (ch(8) << 8) | ch(0)).toString(16).slice(1);
}

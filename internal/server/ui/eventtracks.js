// The tracks of a trace's threads without samples (compositor, raster, GPU,
// workers without a profile): each a small flame chart of its trace events
// (nested by time, coloured by category), grouped by process, on the time
// axis of the flame chart and in its window. The server sends the boxes of
// the window per track (runs under a pixel merged), as for the flame chart.
// Wheel and drag zoom and pan the shared window; hover shows an event.

import { get } from './api.js';
import { el, clear } from './dom.js';
import { layout, hit, zoom, pan } from './view.js';
import { categoryColor, darker, truncateToWidth, fmtMs } from './format.js';
import { showTooltip } from './flamechart.js';
import { drawGrid } from './ruler.js';

const ROW = 15;
const MAX_LEVELS = 16;

// trackLabel names an event thread as DevTools' track does: its thread
// name, else "Thread TID".
export function trackLabel(th) {
  return th.name || `Thread ${th.tid}`;
}

// processLabel names the process heading a group of tracks.
export function processLabel(th) {
  return `${th.processName || 'Process'} (pid ${th.pid})`;
}

export class EventTracks {
  // opts: {root, threads (info.eventThreads), sampled (info.threads),
  // categories, tooltip,
  // widthOf(): the flame chart's width, onWindow(win): the window asked for
  // by a wheel or a drag, onError}
  constructor(opts) {
    Object.assign(this, opts);
    this.opts = opts;
    this.colors = this.categories.map((c) => categoryColor(c.color));
    this.merged = this.colors.map((c) => darker(c, 0.8));
    this.tracks = [];
    this.seq = 0;
    this.widths = new Map();
    this.entryCache = new Map();
    this.build();
  }

  build() {
    clear(this.root);
    this.root.hidden = this.threads.length === 0;
    const byProcess = new Map();
    for (const th of this.threads) {
      const key = processLabel(th);
      if (!byProcess.has(key)) byProcess.set(key, []);
      byProcess.get(key).push(th);
    }
    // The processes of sampled threads first (the page's own), in the
    // order of those threads, then the others as the trace has them.
    const rank = (ths) => {
      const k = (this.sampled || []).findIndex((x) => x.pid === ths[0].pid);
      return k < 0 ? Infinity : k;
    };
    const groups = [...byProcess].sort((a, b) => rank(a[1]) - rank(b[1]));
    for (const [proc, ths] of groups) {
      this.root.append(el('div', { class: 'proc' }, proc));
      for (const th of ths) {
        const canvas = el('canvas', { class: 'etrack-canvas', 'aria-label': `trace events of ${trackLabel(th)}` });
        const box = el('div', { class: 'etrack', 'data-event-thread': th.index },
          el('div', { class: 'etrack-name', title: `${th.processName ? th.processName + ' / ' : ''}${trackLabel(th)} (${th.pid}:${th.tid}), ${th.events} events, no samples` },
            trackLabel(th), el('span', { class: 'p' }, ` ${th.events} events`)),
          canvas);
        this.root.append(box);
        const tr = { th, canvas, ctx: canvas.getContext('2d', { alpha: false }), data: null, rects: [] };
        this.tracks.push(tr);
        this.listen(tr);
      }
    }
  }

  width() { return Math.max(1, this.opts.widthOf()); }

  // setThread puts the tracks on thread t's time axis with window win.
  setThread(t, bounds, win) {
    this.t = t;
    this.bounds = bounds;
    this.win = { ...win };
    this.entryCache.clear();
    return this.fetch();
  }

  setWindow(win) {
    this.win = { ...win };
    this.draw();
    clearTimeout(this.fetchTimer);
    this.fetchTimer = setTimeout(() => this.fetch().catch((e) => this.onError && this.onError(e)), 30);
  }

  // fetch asks for the boxes of every track in the window (a later
  // request wins).
  async fetch() {
    if (!this.tracks.length || this.t === undefined) return false;
    const seq = ++this.seq;
    const win = { ...this.win };
    const d = await get('events', { t: this.t, from: win.from.toFixed(3), to: win.to.toFixed(3), width: this.width() });
    if (seq !== this.seq) return false;
    for (const tb of d.tracks) {
      const tr = this.tracks.find((x) => x.th.index === tb.index);
      if (tr) tr.data = tb;
    }
    this.draw();
    return true;
  }

  measure(ctx, s) {
    let w = this.widths.get(s);
    if (w === undefined) {
      w = ctx.measureText(s).width;
      if (this.widths.size > 20000) this.widths.clear();
      this.widths.set(s, w);
    }
    return w;
  }

  draw() {
    for (const tr of this.tracks) this.drawTrack(tr);
  }

  drawTrack(tr) {
    const dpr = window.devicePixelRatio || 1;
    const width = this.width();
    const d = tr.data;
    const levels = d ? Math.min(MAX_LEVELS, Math.max(1, d.levels)) : 1;
    const height = levels * ROW;
    const c = tr.canvas;
    if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
      c.width = Math.round(width * dpr);
      c.height = Math.round(height * dpr);
      c.style.width = width + 'px';
      c.style.height = height + 'px';
    }
    const ctx = tr.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    drawGrid(ctx, this.win, width, height);
    tr.rects = [];
    if (!d || !this.win) return;
    const rects = layout(d, this.win, width, dpr, ROW).filter((r) => d.level[r.i] < MAX_LEVELS);
    tr.rects = rects;
    const groups = new Map();
    for (const r of rects) {
      const k = (d.id[r.i] < 0 ? 'm' : 'c') + d.cat[r.i];
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(r);
    }
    for (const [k, g] of groups) {
      const cat = +k.slice(1);
      ctx.fillStyle = k[0] === 'c' ? this.colors[cat] : this.merged[cat];
      for (const r of g) ctx.fillRect(r.x, r.y, r.w, r.h);
    }
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#1b1b1f';
    for (const r of rects) {
      if (r.w < 24 || d.id[r.i] < 0) continue;
      const x = Math.max(r.x, 0) + 3;
      const w = Math.min(r.x + r.w, width) - x - 3;
      const label = truncateToWidth(d.names[d.name[r.i]], w, (s) => this.measure(ctx, s));
      if (label) ctx.fillText(label, x, r.y + r.h / 2 + 0.5);
    }
    if (tr.hover >= 0) {
      for (const r of rects) {
        if (d.id[r.i] !== tr.hover) continue;
        ctx.strokeStyle = '#444';
        ctx.lineWidth = 1.5;
        ctx.strokeRect(r.x + 0.75, r.y + 0.75, Math.max(r.w - 1.5, 0.5), r.h - 1.5);
      }
    }
  }

  // drawn lists what the last draw showed, per track: its event thread and
  // every box with its entry id (−1 merged), level, start, duration (µs),
  // name and count.
  drawn() {
    return this.tracks.map((tr) => {
      const d = tr.data;
      return {
        index: tr.th.index, name: trackLabel(tr.th), pid: tr.th.pid, tid: tr.th.tid,
        boxes: d ? tr.rects.map((r) => ({
          id: d.id[r.i], level: d.level[r.i], start: d.start[r.i], dur: d.dur[r.i],
          name: d.name[r.i] >= 0 ? d.names[d.name[r.i]] : null, count: d.count[r.i], x: r.x, w: r.w,
        })) : [],
      };
    });
  }

  listen(tr) {
    const c = tr.canvas;
    let drag = null;
    c.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      if (!this.win) return;
      const b = c.getBoundingClientRect();
      const at = (ev.clientX - b.left) / b.width;
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        const delta = (ev.shiftKey ? ev.deltaY : ev.deltaX) / b.width * (this.win.to - this.win.from);
        this.onWindow(pan(this.win, delta, this.bounds));
      } else {
        this.onWindow(zoom(this.win, at, Math.pow(1.0015, ev.deltaY), this.bounds));
      }
    }, { passive: false });
    c.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, win: this.win }; });
    window.addEventListener('mousemove', (ev) => {
      if (drag) {
        const dx = ev.clientX - drag.x;
        if (Math.abs(dx) > 2) this.onWindow(pan(drag.win, -dx / this.width() * (drag.win.to - drag.win.from), this.bounds));
        return;
      }
      if (ev.target === c) this.hoverAt(tr, ev);
    });
    window.addEventListener('mouseup', () => { drag = null; });
    c.addEventListener('mouseleave', () => { tr.hover = -1; this.tooltip.hidden = true; this.drawTrack(tr); });
  }

  async entry(tr, id) {
    const key = `${this.t}/${tr.th.index}/${id}`;
    let p = this.entryCache.get(key);
    if (!p) {
      p = get('event', { t: this.t, e: tr.th.index, id });
      this.entryCache.set(key, p);
      if (this.entryCache.size > 500) this.entryCache.delete(this.entryCache.keys().next().value);
    }
    return p;
  }

  async hoverAt(tr, ev) {
    const b = tr.canvas.getBoundingClientRect();
    const k = hit(tr.rects, ev.clientX - b.left, ev.clientY - b.top);
    const d = tr.data;
    const r = k < 0 ? null : tr.rects[k];
    const id = r ? d.id[r.i] : -1;
    if (id !== tr.hover) { tr.hover = id; this.drawTrack(tr); }
    if (!r) { this.tooltip.hidden = true; return; }
    const pos = { x: ev.clientX, y: ev.clientY };
    if (id < 0) {
      showTooltip(this.tooltip, pos, [[`${d.count[r.i]} events under a pixel`, 'b'], [fmtMs(d.dur[r.i] / 1000), '']]);
      return;
    }
    const e = await this.entry(tr, id);
    if (tr.hover !== id) return;
    showTooltip(this.tooltip, pos, [
      [e.name, 'b'],
      [`${trackLabel(tr.th)}${tr.th.processName ? ' · ' + tr.th.processName : ''}`, 'loc'],
      [`total ${fmtMs(e.durUs / 1000)} · self ${fmtMs(e.selfUs / 1000)}`, ''],
      [`${e.category}${e.traceCat ? ' · ' + e.traceCat : ''} · at ${fmtMs(e.startUs / 1000)}`, 'cat'],
    ]);
  }
}

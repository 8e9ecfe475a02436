// The track list of a multi-thread profile: one row per thread, grouped by
// process, with its activity on the profile's common time axis; a click
// shows that thread.

import { get } from './api.js';
import { el, clear } from './dom.js';
import { categoryColor } from './format.js';
import { drawShares } from './activity.js';

const HEIGHT = 18;

export class Tracks {
  // opts: {root, threads (ViewerInfo.threads), categories, onSelect(index)}
  constructor(opts) {
    Object.assign(this, opts);
    this.colors = this.categories.map((c) => categoryColor(c.color));
    this.rows = [];
  }

  // load draws every thread's track (at most 64).
  async load(selected) {
    clear(this.root);
    this.root.hidden = this.threads.length < 2;
    if (this.root.hidden) return;
    // The common axis, in µs on the file's clock.
    let min = Infinity, max = -Infinity;
    for (const th of this.threads) {
      min = Math.min(min, th.originUs + th.fromUs);
      max = Math.max(max, th.originUs + th.toUs);
    }
    const byProcess = new Map();
    for (const th of this.threads.slice(0, 64)) {
      const key = `${th.processName || 'process'} ${th.pid}`;
      if (!byProcess.has(key)) byProcess.set(key, []);
      byProcess.get(key).push(th);
    }
    this.rows = [];
    const jobs = [];
    for (const [proc, ths] of byProcess) {
      this.root.append(el('div', { class: 'proc' }, proc));
      for (const th of ths) {
        const canvas = el('canvas', { class: 'track-canvas', 'aria-label': `activity of ${th.name}` });
        const row = el('div', { class: 'track', 'data-thread': th.index, role: 'button', title: `${th.name} (${th.pid}:${th.tid}), ${th.samples} samples`, onclick: () => this.onSelect(th.index) },
          el('span', { class: 'track-name' }, th.name || `thread ${th.tid}`), el('span', { class: 'track-graph' }, canvas));
        this.root.append(row);
        this.rows.push(row);
        jobs.push(this.draw(canvas, th, min, max));
      }
    }
    this.select(selected);
    await Promise.all(jobs);
  }

  async draw(canvas, th, min, max) {
    const width = Math.max(1, canvas.parentElement.clientWidth);
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(HEIGHT * dpr);
    canvas.style.width = width + 'px';
    canvas.style.height = HEIGHT + 'px';
    const d = await get('activity', { t: th.index, from: (min - th.originUs).toFixed(3), to: (max - th.originUs).toFixed(3), width });
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, HEIGHT);
    drawShares(ctx, d, this.categories, this.colors, width, HEIGHT);
  }

  select(t) {
    for (const r of this.rows) r.classList.toggle('sel', Number(r.dataset.thread) === t);
  }
}

// The flame graph: the top-down tree aggregated, left-heavy (children
// largest first), root at the top; click a box to zoom into its subtree.

import { get } from './api.js';
import { categoryColor, truncateToWidth, fmtMs, fmtPct, location, displayName } from './format.js';
import { showTooltip } from './flamechart.js';
import { diffColor, diffKey, fmtDelta, SAME } from './diffscale.js';

const ROW = 18;

// hashHue gives a stable warm colour per function name.
export function nameColor(name) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
  const v = Math.abs(h);
  return `hsl(${20 + (v % 40)}, ${70 + (v % 20)}%, ${62 + (v % 12)}%)`;
}

// layoutGraph positions the rows of a FlameGraph answer (depth-first,
// parents first): x and w in [0, 1] of the root's total, depth from 0.
export function layoutGraph(rows) {
  const pos = new Map();
  const next = new Map(); // per parent id, the x of the next child
  const out = [];
  rows.forEach((r, i) => {
    let x = 0, depth = 0;
    if (i > 0) {
      const p = pos.get(r.parent);
      if (!p) return;
      x = next.get(r.parent);
      depth = p.depth + 1;
    }
    const w = rows[0].totalMs > 0 ? r.totalMs / rows[0].totalMs : 0;
    const b = { row: r, x, w, depth };
    pos.set(r.id, b);
    next.set(r.id, x);
    if (i > 0) next.set(r.parent, x + w);
    out.push(b);
  });
  return out;
}

export class FlameGraph {
  constructor(opts) {
    Object.assign(this, opts);
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.boxes = [];
    this.listen();
  }

  async load(t, params, root) {
    this.t = t;
    this.params = params;
    const width = Math.max(1, this.canvas.parentElement.clientWidth);
    this.data = await get('flamegraph', [['t', t], ...params, ['root', root || 0], ['width', width]]);
    this.boxes = layoutGraph(this.data.rows);
    this.draw();
  }

  draw() {
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(1, this.canvas.parentElement.clientWidth);
    const depth = this.boxes.reduce((m, b) => Math.max(m, b.depth), 0);
    const height = Math.max(this.canvas.parentElement.clientHeight, Math.min(16000, (depth + 2) * ROW));
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    this.canvas.style.width = width + 'px';
    this.canvas.style.height = height + 'px';
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    this.rects = [];
    for (const b of this.boxes) {
      const x = Math.round(b.x * width * dpr) / dpr, w = Math.max(1 / dpr, Math.round(b.w * width * dpr) / dpr - 1 / dpr);
      const y = b.depth * ROW;
      const name = b.depth === 0 && this.data.root === 0 ? 'all' : displayName(b.row);
      ctx.fillStyle = this.diff ? this.diffFill(b) : b.row.event ? categoryColor('purple') : nameColor(name);
      ctx.fillRect(x, y, w, ROW - 1);
      this.rects.push({ b, x, y, w });
      if (w > 24) {
        ctx.fillStyle = '#1b1b1f';
        const label = truncateToWidth(name, w - 6, (s) => ctx.measureText(s).width);
        if (label) ctx.fillText(label, x + 3, y + ROW / 2);
      }
    }
  }

  // diffFill colours a box by its function's change of self time (this.diff,
  // from diffscale.indexDiff); the root and unmatched functions are grey.
  diffFill(b) {
    if (b.depth === 0 && this.data.root === 0) return SAME;
    const dr = this.diff.rows.get(diffKey(b.row));
    return dr ? diffColor(dr.deltaSelfMs, this.diff.maxDelta) : SAME;
  }

  at(ev) {
    const r = this.canvas.getBoundingClientRect();
    const x = ev.clientX - r.left, y = ev.clientY - r.top;
    return this.rects.find((q) => x >= q.x && x < q.x + Math.max(q.w, 1) && y >= q.y && y < q.y + ROW);
  }

  diffLine(r) {
    const dr = this.diff.rows.get(diffKey(r));
    if (!dr) return 'not matched in NEW';
    return `function self ${fmtMs(dr.baseSelfMs)} → ${fmtMs(dr.newSelfMs)} (${fmtDelta(dr.deltaSelfMs)}), ${dr.status}`;
  }

  listen() {
    this.canvas.addEventListener('click', (ev) => {
      const q = this.at(ev);
      if (q && this.onZoom) this.onZoom(q.b.depth === 0 ? null : q.b.row);
    });
    this.canvas.addEventListener('mousemove', (ev) => {
      const q = this.at(ev);
      if (!q) { this.tooltip.hidden = true; return; }
      const r = q.b.row;
      showTooltip(this.tooltip, { x: ev.clientX, y: ev.clientY }, [[displayName(r), 'b'], [location(r), 'loc'],
        [`total ${fmtMs(r.totalMs)} (${fmtPct(r.totalMs, this.data.totalMs)}) · self ${fmtMs(r.selfMs)}`, ''],
        ...(this.diff ? [[this.diffLine(r), '']] : [])]);
    });
    this.canvas.addEventListener('mouseleave', () => { this.tooltip.hidden = true; });
  }
}

// The tables: the call tree and bottom-up tree (expandable, trimmed to what
// is open: the server sends the children of the open nodes), the function
// list (sortable, filtered by the search) and the selected function's
// callers and callees (speedscope's sandwich) with its lines and source.

import { get } from './api.js';
import { el, clear } from './dom.js';
import { fmtMs, fmtPct, location, displayName } from './format.js';
import { diffKey, fmtDelta } from './diffscale.js';

function num(ms) { return fmtMs(ms); }

// header builds a table head; sortable columns call onSort(key).
function header(cols, sort, onSort) {
  return el('thead', {}, el('tr', {}, cols.map(([key, label, cls]) => {
    const th = el('th', { class: cls || '' }, label);
    if (key && onSort) {
      th.classList.add('sortable');
      if (sort === key) th.classList.add('sorted');
      th.addEventListener('click', () => onSort(key));
    }
    return th;
  })));
}

function nameCell(row, indent, toggle) {
  const td = el('td', { class: 'name' });
  td.style.paddingLeft = (4 + indent * 14) + 'px';
  td.append(toggle || el('span', { class: 'tw' }));
  td.append(el('span', { class: row.event ? 'fn ev' : 'fn' }, displayName(row)));
  const loc = location(row);
  if (loc) td.append(el('span', { class: 'loc' }, loc));
  return td;
}

// TreeTable shows a top-down or bottom-up tree.
export class TreeTable {
  // opts: {root (element), onSelect(row)}
  constructor(opts) {
    Object.assign(this, opts);
    this.open = new Set();
    this.sort = 'total';
  }

  // load fetches the rows for the thread t, tree parameters params and
  // bottom-up flag, keeping the open set when only the sort changes.
  async load(t, params, bottomUp, keepOpen = false) {
    if (!keepOpen) this.open.clear();
    this.t = t;
    this.params = params;
    this.bottomUp = bottomUp;
    if (!keepOpen) this.sort = bottomUp ? 'self' : 'total';
    const q = [['t', t], ...params];
    if (bottomUp) q.push(['bu', '1']);
    if (this.open.size) q.push(['open', [...this.open].join(',')]);
    this.data = await get('tree', q);
    this.render();
    return this.data;
  }

  toggle(id) {
    if (this.open.has(id)) this.open.delete(id); else this.open.add(id);
    return this.load(this.t, this.params, this.bottomUp, true);
  }

  // visibleRows returns the rows in display order with their depth.
  visibleRows() {
    const kids = new Map();
    for (const r of this.data.rows) {
      if (!kids.has(r.parent)) kids.set(r.parent, []);
      kids.get(r.parent).push(r);
    }
    const key = this.sort === 'self' ? (r) => r.selfMs : this.sort === 'name' ? null : (r) => r.totalMs;
    for (const list of kids.values()) {
      if (key) list.sort((a, b) => key(b) - key(a));
      else list.sort((a, b) => displayName(a).localeCompare(displayName(b)));
    }
    const out = [];
    const walk = (parent, depth) => {
      for (const r of kids.get(parent) || []) {
        out.push([r, depth]);
        if (this.open.has(r.id)) walk(r.id, depth + 1);
      }
    };
    walk(0, 0);
    return out;
  }

  render() {
    const total = this.data.totalMs;
    const cols = [['total', 'Total', 'n'], ['', '%', 'n'], ['self', 'Self', 'n'], ['', '%', 'n'], ['name', this.bottomUp ? 'Function ← callers' : 'Function', '']];
    const body = el('tbody');
    for (const [r, depth] of this.visibleRows()) {
      const isOpen = this.open.has(r.id);
      const tw = r.children
        ? el('span', { class: 'tw', role: 'button', 'aria-label': isOpen ? 'collapse' : 'expand', onclick: (ev) => { ev.stopPropagation(); this.toggle(r.id); } }, isOpen ? '▾' : '▸')
        : null;
      const tr = el('tr', { 'data-id': r.id, 'data-func': r.func },
        el('td', { class: 'n' }, num(r.totalMs)), el('td', { class: 'n p' }, fmtPct(r.totalMs, total)),
        el('td', { class: 'n' }, num(r.selfMs)), el('td', { class: 'n p' }, fmtPct(r.selfMs, total)),
        nameCell(r, depth, tw));
      tr.addEventListener('click', () => {
        for (const s of body.querySelectorAll('tr.sel')) s.classList.remove('sel');
        tr.classList.add('sel');
        if (this.onSelect) this.onSelect(r);
      });
      tr.addEventListener('dblclick', () => { if (r.children) this.toggle(r.id); });
      body.append(tr);
      if (r.more) body.append(el('tr', { class: 'more' }, el('td', { colSpan: 5 }, `… ${r.more} more rows`)));
    }
    if (!body.firstChild) body.append(el('tr', { class: 'more' }, el('td', { colSpan: 5 }, 'No time left in this view, range and transforms.')));
    clear(this.root);
    this.root.append(el('table', { class: 'tree' }, header(cols, this.sort, (k) => { this.sort = k; this.render(); }), body));
  }
}

// deltaCell shows a change of time (ms), red for more, blue for less.
function deltaCell(ms) {
  if (ms === undefined) return el('td', { class: 'n d', title: 'not in NEW' }, '');
  return el('td', { class: ms > 0 ? 'n d up' : ms < 0 ? 'n d down' : 'n d' }, fmtDelta(ms));
}

// FunctionsTable lists the functions with self and total time; with a
// diff (this.diff, from diffscale.indexDiff) also the change of each from
// BASE (the page's profile) to NEW.
export class FunctionsTable {
  constructor(opts) {
    Object.assign(this, opts);
    this.sort = 'self';
  }

  async load(t, params, search, total) {
    this.t = t;
    const q = [['t', t], ...params, ['q', search || ''], ['by', this.sort === 'total' ? 'total' : 'self']];
    if (total) q.push(['total', total]);
    this.data = await get('functions', q);
    this.args = [t, params, search, total];
    this.render();
    return this.data;
  }

  render() {
    const d = this.data, total = d.totalMs;
    const rows = [...d.rows];
    if (this.sort === 'name') rows.sort((a, b) => displayName(a).localeCompare(displayName(b)));
    const body = el('tbody');
    const diff = this.diff;
    const span = diff ? 7 : 5;
    for (const r of rows) {
      const dr = diff ? diff.rows.get(diffKey(r)) : null;
      const tr = el('tr', { 'data-func': r.func },
        el('td', { class: 'n' }, num(r.selfMs)), el('td', { class: 'n p' }, fmtPct(r.selfMs, total)),
        el('td', { class: 'n' }, num(r.totalMs)), el('td', { class: 'n p' }, fmtPct(r.totalMs, total)),
        ...(diff ? [deltaCell(dr ? dr.deltaSelfMs : undefined), deltaCell(dr ? dr.deltaTotalMs : undefined)] : []),
        nameCell(r, 0, null));
      tr.addEventListener('click', () => {
        for (const s of body.querySelectorAll('tr.sel')) s.classList.remove('sel');
        tr.classList.add('sel');
        if (this.onSelect) this.onSelect(r);
      });
      body.append(tr);
      if (r.more) body.append(el('tr', { class: 'more' }, el('td', { colSpan: span }, `… ${r.more} more functions`)));
    }
    if (diff) {
      const added = diff.data.functions.filter((f) => f.status === 'added');
      if (added.length) {
        const ms = added.reduce((a, f) => a + f.deltaSelfMs, 0);
        body.append(el('tr', { class: 'more' }, el('td', { colSpan: span }, `${added.length} functions only in NEW (${fmtDelta(ms)} self): ${added.slice(0, 5).map(displayName).join(', ')}${added.length > 5 ? ', …' : ''}`)));
      }
    }
    const cols = [['self', 'Self', 'n'], ['', '%', 'n'], ['total', `Total (${d.totalSemantics})`, 'n'], ['', '%', 'n'],
      ...(diff ? [['', 'Δ self', 'n d'], ['', 'Δ total', 'n d']] : []), ['name', 'Function', '']];
    clear(this.root);
    this.root.append(el('table', { class: 'tree' }, header(cols, this.sort, (k) => {
      this.sort = k;
      if (k === 'name') this.render(); else this.load(...this.args);
    }), body));
  }
}

// renderFunction fills root with a function's sandwich: callers above,
// callees below, the per-line self time and the source when readable.
// actions are [label, fn] buttons (focus, merge, drop, …).
export async function renderFunction(root, t, params, func, actions, onPick) {
  const d = await get('function', [['t', t], ...params, ['f', func]]);
  clear(root);
  const f = d.function;
  const bar = el('div', { class: 'actions' }, actions.map(([label, fn]) => el('button', { type: 'button', onclick: () => fn(f) }, label)));
  root.append(el('h3', { title: displayName(f).slice(0, 2000) }, el('span', { class: f.event ? 'fn ev' : 'fn' }, displayName(f)), el('span', { class: 'loc' }, location(f))),
    el('div', { class: 'stats' }, `self ${fmtMs(f.selfMs)} · total ${fmtMs(f.totalMs)} · ${f.calls} calls`), bar);
  const list = (title, rows, total) => {
    const body = el('tbody');
    for (const r of rows) {
      const tr = el('tr', { 'data-func': r.func }, el('td', { class: 'n' }, fmtMs(r.totalMs)), el('td', { class: 'n' }, fmtMs(r.selfMs)), nameCell(r, 0, null));
      tr.addEventListener('click', () => onPick && onPick(r));
      body.append(tr);
    }
    if (!rows.length) body.append(el('tr', { class: 'more' }, el('td', { colSpan: 3 }, 'none')));
    return el('div', { class: 'side' }, el('h4', {}, title), el('table', { class: 'tree' }, header([['', 'Total', 'n'], ['', 'Self', 'n'], ['', 'Function', '']]), body));
  };
  root.append(el('div', { class: 'sandwich' }, list('Callers', d.callers), list('Callees', d.callees)));
  if (d.lines.length) {
    const lines = el('div', { class: 'lines' }, el('h4', {}, 'Self time by line'));
    const byLine = new Map(d.lines.map((l) => [l.sourceLine, l]));
    let src = null;
    if (f.url && !f.event) {
      try { src = await get('source', { url: f.url }); } catch (e) { lines.append(el('div', { class: 'note' }, String(e.message))); }
    }
    const body = el('tbody');
    if (src) {
      const text = src.text.split('\n');
      const hot = d.lines.map((l) => l.sourceLine);
      const lo = Math.max(1, Math.min(...hot) - 5), hi = Math.min(text.length, Math.max(...hot) + 5);
      for (let n = lo; n <= hi; n++) {
        const l = byLine.get(n);
        body.append(el('tr', { class: l ? 'hot' : '' }, el('td', { class: 'n' }, l ? fmtMs(l.selfMs) : ''), el('td', { class: 'n ln' }, String(n)), el('td', { class: 'code' }, text[n - 1] ?? '')));
      }
    } else {
      for (const l of d.lines) body.append(el('tr', {}, el('td', { class: 'n' }, fmtMs(l.selfMs)), el('td', { class: 'n ln' }, String(l.sourceLine)), el('td', { class: 'code' }, `${l.ticks} ticks`)));
    }
    lines.append(el('table', { class: 'src' }, body));
    root.append(lines);
  }
  return d;
}

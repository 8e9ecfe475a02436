// Pure view logic: the time window's zoom and pan, box layout with
// culling and pixel snapping, and the page state kept in the URL (tested
// by view.test.mjs under node --test).

// zoom returns the window [from, to) scaled by factor (< 1 zooms in)
// around the point at fraction at (0..1) of the width, kept within
// [min, max] and no narrower than minSpan.
export function zoom(win, at, factor, bounds, minSpan = 0.001) {
  const span = win.to - win.from;
  let next = Math.max(minSpan, Math.min(bounds.max - bounds.min, span * factor));
  const pivot = win.from + span * at;
  let from = pivot - next * at;
  return clampWindow({ from, to: from + next }, bounds);
}

// pan moves the window by delta (time units), kept within bounds.
export function pan(win, delta, bounds) {
  return clampWindow({ from: win.from + delta, to: win.to + delta }, bounds);
}

// clampWindow moves a window into bounds, keeping its span if it fits.
export function clampWindow(win, bounds) {
  let { from, to } = win;
  const span = Math.min(to - from, bounds.max - bounds.min);
  if (from < bounds.min) { from = bounds.min; to = from + span; }
  if (to > bounds.max) { to = bounds.max; from = to - span; }
  return { from, to };
}

// layout returns the rectangles to draw for the boxes of a FlameBoxes
// answer (column arrays) in the window at width CSS pixels and device
// pixel ratio dpr: boxes outside the window are culled, x edges snapped to
// device pixels, every box at least one device pixel wide. rowHeight is
// in CSS pixels; top is the y of level 0.
export function layout(data, win, width, dpr, rowHeight, top = 0) {
  const out = [];
  const scale = width / (win.to - win.from);
  const n = data.level.length;
  for (let i = 0; i < n; i++) {
    const s = data.start[i], e = s + data.dur[i];
    if (e <= win.from || s >= win.to) continue;
    let x0 = Math.round((s - win.from) * scale * dpr) / dpr;
    let x1 = Math.round((e - win.from) * scale * dpr) / dpr;
    x0 = Math.max(x0, -1);
    x1 = Math.min(x1, width + 1);
    if (x1 - x0 < 1 / dpr) x1 = x0 + 1 / dpr;
    out.push({ i, x: x0, w: x1 - x0, y: top + data.level[i] * rowHeight, h: rowHeight - 1 });
  }
  return out;
}

// hit returns the index (into rects) of the rectangle under (x, y), or −1.
export function hit(rects, x, y) {
  for (let k = rects.length - 1; k >= 0; k--) {
    const r = rects[k];
    if (x >= r.x && x < r.x + Math.max(r.w, 1) && y >= r.y && y < r.y + r.h + 1) return k;
  }
  return -1;
}

// The state kept in the URL, its keys and defaults.
const LISTS = ['focus', 'merge', 'drop'];
const SCALARS = { t: '', from: '', to: '', rfrom: '', rto: '', view: '', cr: '', tab: 'calltree', q: '', fn: '', total: '', root: '' };

// parseState reads the page state from a URL query string.
export function parseState(search) {
  const p = new URLSearchParams(search);
  const st = {};
  for (const [k, d] of Object.entries(SCALARS)) st[k] = p.get(k) ?? d;
  for (const k of LISTS) st[k] = p.getAll(k);
  st.crumbs = p.getAll('x'); // the transform trail: "focus:…", "merge:…", "drop:…", "cr"
  return st;
}

// formatState writes the page state as a URL query string (defaults left
// out, keys in a fixed order so that equal states give equal URLs).
export function formatState(st) {
  const p = new URLSearchParams();
  for (const [k, d] of Object.entries(SCALARS)) {
    const v = st[k];
    if (v !== undefined && v !== null && String(v) !== d) p.set(k, String(v));
  }
  for (const c of st.crumbs || []) p.append('x', c);
  return '?' + p.toString();
}

// transformParams turns the trail of transforms into the API's parameters
// (focus=, merge=, drop= repeated, cr=1) plus the view and range.
export function transformParams(st) {
  const p = [];
  if (st.view) p.push(['view', st.view]);
  if (st.rfrom) p.push(['rfrom', st.rfrom]);
  if (st.rto) p.push(['rto', st.rto]);
  for (const c of st.crumbs || []) {
    if (c === 'cr') { p.push(['cr', '1']); continue; }
    const i = c.indexOf(':');
    if (i > 0 && LISTS.includes(c.slice(0, i))) p.push([c.slice(0, i), c.slice(i + 1)]);
  }
  return p;
}

// crumbLabel describes one transform for the breadcrumb trail.
export function crumbLabel(c) {
  if (c === 'cr') return 'collapse recursion';
  const i = c.indexOf(':');
  return i > 0 ? `${c.slice(0, i)} ${c.slice(i + 1)}` : c;
}

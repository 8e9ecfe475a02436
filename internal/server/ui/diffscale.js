// The diverging colour scale of the differential flame graph, ported from
// format/svg/diff.go (DiffColor): ColorBrewer's RdBu, readable with the
// common colour-vision deficiencies; more self time red, less blue, no
// change grey. Tested by test/diffscale.test.mjs under node --test.

const MORE = [0xb2, 0x18, 0x2b];
const LESS = [0x21, 0x66, 0xac];
const PALE = [0xf7, 0xf7, 0xf7];
export const SAME = '#c8c8c8';

// diffColor returns the fill for a change of self time delta when the
// largest absolute change is maxDelta (any unit, the same for both): grey
// for none, else from pale to red or blue by the square root of
// |delta|/maxDelta, so that small changes stay visible.
export function diffColor(delta, maxDelta) {
  if (!delta || !(maxDelta > 0)) return SAME;
  const to = delta < 0 ? LESS : MORE;
  const t = 0.15 + 0.85 * Math.sqrt(Math.min(1, Math.abs(delta) / maxDelta));
  return '#' + PALE.map((p, k) => Math.round(p + (to[k] - p) * t).toString(16).padStart(2, '0')).join('');
}

// legendSteps returns the legend's [value, fill] pairs, from the largest
// decrease to the largest increase (grey in the middle), as the SVG's.
export function legendSteps(maxDelta, steps = 11) {
  const half = Math.floor(steps / 2);
  const out = [];
  for (let k = 0; k < steps; k++) {
    const v = ((k - half) / half) * maxDelta;
    out.push([v, k === half ? SAME : diffColor(v, maxDelta)]);
  }
  return out;
}

// anonymous is compare.anonymous: the names pprof writers give anonymous
// functions count as "".
function anonymous(name) {
  name = name || '';
  if (name === '(anonymous)') return '';
  if (name.startsWith('(anonymous) ')) {
    const rest = name.slice('(anonymous) '.length);
    if (rest.startsWith('line ') || !/[ \t]/.test(rest)) return '';
  }
  return name;
}

// diffKey matches a viewer row with a row of /api/diff: by name, line,
// column and event-ness (URLs may differ between the two machines; the
// server matched them already).
export function diffKey(r) {
  return r.event ? `e\u0000${r.name}` : `f\u0000${anonymous(r.name)}\u0000${r.line}\u0000${r.col}`;
}

// indexDiff returns a Map from diffKey to /api/diff rows and the largest
// absolute change of self time.
export function indexDiff(d) {
  const m = new Map();
  let max = 0;
  for (const r of d.functions) {
    const k = diffKey(r);
    if (!m.has(k)) m.set(k, r);
    max = Math.max(max, Math.abs(r.deltaSelfMs));
  }
  return { rows: m, maxDelta: max, data: d };
}

// fmtDelta formats a change in ms with its sign.
export function fmtDelta(ms) {
  if (!Number.isFinite(ms)) return '–';
  if (ms === 0) return '±0';
  const a = Math.abs(ms);
  const s = a >= 100 ? a.toFixed(1) : a >= 1 ? a.toFixed(2) : a.toFixed(3);
  return (ms < 0 ? '−' : '+') + s + ' ms';
}

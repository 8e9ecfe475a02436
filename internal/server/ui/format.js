// Pure formatting and colour helpers (tested by format.test.mjs under node --test).

// The fill of each category colour name (profile.Categories), as the
// Firefox Profiler paints its categories.
const PALETTE = {
  transparent: '#ffffff',
  grey: '#b8b8bf',
  yellow: '#ffe066',
  purple: '#c29be6',
  green: '#7cd67c',
  blue: '#6fa8ef',
  orange: '#ffad5c',
  lightblue: '#a6dcf5',
  brown: '#c99a6e',
  red: '#f28b82',
  magenta: '#f07ad6',
};

// categoryColor returns the CSS colour of a category colour name.
export function categoryColor(name) {
  return PALETTE[name] || PALETTE.grey;
}

// darker returns a darker shade of a #rrggbb colour (for merged boxes and
// highlights); f in [0, 1] is the share kept.
export function darker(hex, f) {
  const n = parseInt(hex.slice(1), 16);
  const ch = (s) => Math.max(0, Math.min(255, Math.round(((n >> s) & 255) * f)));
  return '#' + ((1 << 24) | (ch(16) << 16) | (ch(8) << 8) | ch(0)).toString(16).slice(1);
}

// fmtMs formats milliseconds for people: 3 significant decimals under 10,
// one under 1000, else whole.
export function fmtMs(ms) {
  if (!Number.isFinite(ms)) return '–';
  const a = Math.abs(ms);
  if (a >= 1000) return (ms / 1000).toFixed(a >= 10000 ? 1 : 2) + ' s';
  if (a >= 100) return ms.toFixed(1) + ' ms';
  if (a >= 1) return ms.toFixed(2) + ' ms';
  if (a === 0) return '0 ms';
  return (ms * 1000).toFixed(a >= 0.01 ? 0 : 1) + ' µs';
}

// fmtPct formats part/total as a percentage.
export function fmtPct(part, total) {
  if (!(total > 0)) return '–';
  const p = (100 * part) / total;
  return (p >= 10 ? p.toFixed(1) : p.toFixed(2)) + '%';
}

// location renders a function's place as people read it: url:line:col,
// 1-based (the JSON is 0-based), or '' for none.
export function location(fn) {
  if (!fn || !fn.url || fn.event) return '';
  if (fn.line < 0) return fn.url;
  if (fn.col < 0) return `${fn.url}:${fn.line + 1}`;
  return `${fn.url}:${fn.line + 1}:${fn.col + 1}`;
}

// displayName is a function's name, "(anonymous)" when empty.
export function displayName(fn) {
  return fn && fn.name ? fn.name : '(anonymous)';
}

// matcher names a function for focus/merge/drop (view.ParseMatcher):
// name@url:line (1-based), or the bare name.
export function matcher(fn) {
  const name = fn.name || '(anonymous)';
  if (!fn.url || fn.event) return name;
  return fn.line >= 0 ? `${name}@${fn.url}:${fn.line + 1}` : `${name}@${fn.url}`;
}

// truncateToWidth returns the longest prefix of text (with an ellipsis)
// whose measured width fits max pixels; measure(s) gives widths.
export function truncateToWidth(text, max, measure) {
  if (max <= 0) return '';
  if (measure(text) <= max) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(text.slice(0, mid) + '…') <= max) lo = mid; else hi = mid - 1;
  }
  return lo === 0 ? '' : text.slice(0, lo) + '…';
}

// Small DOM helpers: every string goes in as text, never as HTML.

// el creates an element with attributes (set as properties or with
// setAttribute for data-*/aria-*) and children (nodes or strings, added
// as text).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'title' || k === 'role') e.setAttribute(k, String(v));
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else e[k] = v;
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// clear removes every child of e.
export function clear(e) {
  while (e.firstChild) e.firstChild.remove();
}

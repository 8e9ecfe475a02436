package svg

// zoomScript is the inline click-to-zoom script. It is a constant: the
// profile's strings reach it only as data (the textContent of <title> and
// <text> elements, data-name attributes), and it writes them back only as
// textContent (labels, the details line).
//
// Click a frame: it and its descendants are stretched to the plotting width
// (the root frame's span), its ancestors span the width, other frames are
// hidden; labels are refitted from the full names (data-name, else the
// label) with the writer's estimate (charWidth, textPad, minChars, textBase
// must match). Click "Reset zoom" or the root
// frame to go back. Hovering a frame shows its tooltip on the details line.
// It must not contain "]]>" (it is written in a CDATA section).
const zoomScript = `(function () {
"use strict";
var NS = "http://www.w3.org/2000/svg";
var cur = document.currentScript;
var root = (cur && cur.ownerSVGElement) || document.documentElement;
var details = root.querySelector("#details"), unzoom = root.querySelector("#unzoom");
var gs = root.querySelectorAll("g.f"), frames = [], byG = new Map();
for (var i = 0; i < gs.length; i++) {
  var r = gs[i].querySelector("rect");
  var t = gs[i].querySelector("text");
  var f = {g: gs[i], r: r, s: gs[i].querySelector("svg"), x: +r.getAttribute("x"), y: +r.getAttribute("y"),
    w: +r.getAttribute("width"), name: gs[i].getAttribute("data-name") || (t ? t.textContent : "")};
  frames.push(f);
  byG.set(gs[i], f);
}
if (!frames.length) return;
var X0 = frames[0].x, W0 = frames[0].w, CHAR = 7, PAD = 3, MIN = 3, EPS = 0.011;
function fit(s, w) {
  var n = Math.floor((w - 2 * PAD) / CHAR);
  if (n < MIN) return "";
  var c = Array.from(s);
  return c.length <= n ? s : c.slice(0, n - 1).join("") + "\u2026";
}
function place(f, x, w) {
  f.r.setAttribute("x", x.toFixed(2));
  f.r.setAttribute("width", w.toFixed(2));
  var s = f.s, text = fit(f.name, w);
  if (!text) {
    if (s) s.setAttribute("display", "none");
    return;
  }
  if (!s) {
    s = document.createElementNS(NS, "svg");
    s.setAttribute("y", f.r.getAttribute("y"));
    s.setAttribute("height", f.r.getAttribute("height"));
    var t = document.createElementNS(NS, "text");
    t.setAttribute("x", PAD);
    t.setAttribute("y", "11.5");
    s.appendChild(t);
    f.g.appendChild(s);
    f.s = s;
  }
  s.removeAttribute("display");
  s.setAttribute("x", x.toFixed(2));
  s.setAttribute("width", w.toFixed(2));
  s.firstChild.textContent = text;
}
function zoom(z) {
  var lo = z.x, hi = z.x + z.w, k = W0 / z.w;
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i];
    if (f.x + f.w <= lo + EPS || f.x >= hi - EPS) {
      f.g.setAttribute("display", "none");
      continue;
    }
    f.g.removeAttribute("display");
    if (f.y < z.y) place(f, X0, W0);
    else place(f, X0 + (f.x - lo) * k, f.w * k);
  }
  if (unzoom) unzoom.removeAttribute("display");
}
function reset() {
  for (var i = 0; i < frames.length; i++) {
    frames[i].g.removeAttribute("display");
    place(frames[i], frames[i].x, frames[i].w);
  }
  if (unzoom) unzoom.setAttribute("display", "none");
}
root.addEventListener("click", function (ev) {
  var t = ev.target;
  if (unzoom && (t === unzoom || unzoom.contains(t))) {
    reset();
    return;
  }
  var g = t.closest ? t.closest("g.f") : null, f = g && byG.get(g);
  if (!f) return;
  if (f === frames[0]) reset();
  else zoom(f);
});
root.addEventListener("mouseover", function (ev) {
  var g = ev.target.closest ? ev.target.closest("g.f") : null;
  if (g && details) details.textContent = g.querySelector("title").textContent;
});
root.addEventListener("mouseout", function () {
  if (details) details.textContent = " ";
});
})();
`

import test from 'node:test';
import assert from 'node:assert/strict';
import { zoom, pan, clampWindow, layout, hit, parseState, formatState, transformParams, crumbLabel } from '../view.js';
import { fmtMs, fmtPct, location, matcher, truncateToWidth, categoryColor, darker } from '../format.js';

const B = { min: 0, max: 1000 };

test('zoom keeps the pivot and the bounds', () => {
  const w = zoom({ from: 0, to: 1000 }, 0.5, 0.5, B);
  assert.deepEqual(w, { from: 250, to: 750 });
  const out = zoom({ from: 0, to: 100 }, 0, 4, B);
  assert.deepEqual(out, { from: 0, to: 400 });
  const all = zoom({ from: 100, to: 900 }, 0.5, 10, B);
  assert.deepEqual(all, { from: 0, to: 1000 });
  const tiny = zoom({ from: 10, to: 11 }, 0.5, 1e-9, B, 0.5);
  assert.equal(tiny.to - tiny.from, 0.5);
});

test('pan and clamp', () => {
  assert.deepEqual(pan({ from: 0, to: 100 }, 50, B), { from: 50, to: 150 });
  assert.deepEqual(pan({ from: 0, to: 100 }, -50, B), { from: 0, to: 100 });
  assert.deepEqual(pan({ from: 900, to: 1000 }, 50, B), { from: 900, to: 1000 });
  assert.deepEqual(clampWindow({ from: -10, to: 2000 }, B), { from: 0, to: 1000 });
});

test('layout culls, snaps and keeps boxes visible', () => {
  const data = { level: [0, 1, 0, 2], start: [0, 10, 2000, 500], dur: [100, 0.001, 10, 500] };
  const r = layout(data, { from: 0, to: 1000 }, 100, 2, 10);
  assert.equal(r.length, 3); // the box at 2000 is outside
  assert.deepEqual(r[0], { i: 0, x: 0, w: 10, y: 0, h: 9 });
  assert.equal(r[1].w, 0.5); // one device pixel
  assert.equal(r[2].y, 20);
  assert.equal(hit(r, 5, 3), 0);
  assert.equal(hit(r, 60, 25), 2);
  assert.equal(hit(r, 60, 5), -1);
});

test('state round-trips through the URL', () => {
  const st = parseState('?t=2&from=1.5&to=9&view=js&x=focus%3Amain%40a.js%3A3&x=cr&tab=bottomup&q=%3Cscript%3E');
  assert.equal(st.t, '2');
  assert.deepEqual(st.crumbs, ['focus:main@a.js:3', 'cr']);
  assert.equal(st.q, '<script>');
  assert.equal(parseState(formatState(st)).q, '<script>');
  assert.equal(formatState(st), formatState(parseState(formatState(st))));
  assert.deepEqual(transformParams(st), [['view', 'js'], ['focus', 'main@a.js:3'], ['cr', '1']]);
  assert.equal(formatState(parseState('')), '?');
  assert.equal(crumbLabel('drop:gc'), 'drop gc');
});

test('formatting', () => {
  assert.equal(fmtMs(1234.5), '1.23 s');
  assert.equal(fmtMs(12.345), '12.35 ms');
  assert.equal(fmtMs(0.25), '250 µs');
  assert.equal(fmtMs(0), '0 ms');
  assert.equal(fmtPct(1, 4), '25.0%');
  assert.equal(fmtPct(1, 0), '–');
  assert.equal(location({ url: 'a.js', line: 0, col: 4 }), 'a.js:1:5');
  assert.equal(location({ url: '', line: 0, col: 4 }), '');
  assert.equal(matcher({ name: '', url: 'a.js', line: 2, col: 0 }), '(anonymous)@a.js:3');
  assert.equal(matcher({ name: 'Layout', url: '', line: -1, col: -1, event: true }), 'Layout');
  const measure = (s) => s.length * 10;
  assert.equal(truncateToWidth('abcdefgh', 50, measure), 'abcd…');
  assert.equal(truncateToWidth('abc', 50, measure), 'abc');
  assert.equal(truncateToWidth('abc', 5, measure), '');
  assert.equal(categoryColor('yellow'), '#ffe066');
  assert.equal(categoryColor('nope'), categoryColor('grey'));
  assert.equal(darker('#ffffff', 0.5), '#808080');
});

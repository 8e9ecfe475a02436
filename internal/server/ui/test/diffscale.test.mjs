import test from 'node:test';
import assert from 'node:assert/strict';
import { diffColor, legendSteps, diffKey, indexDiff, fmtDelta, SAME } from '../diffscale.js';

// The same fills as format/svg.DiffColor (values from the Go function).
test('diffColor is the SVG scale', () => {
  assert.equal(diffColor(0, 10), SAME);
  assert.equal(diffColor(5, 0), SAME);
  assert.equal(diffColor(10, 10), '#b2182b');
  assert.equal(diffColor(-10, 10), '#2166ac');
  assert.equal(diffColor(20, 10), '#b2182b'); // clamped
  const pale = 0.15; // the smallest change is a little away from the pale end
  const ch = (p, to) => Math.round(p + (to - p) * (pale + 0.85 * Math.sqrt(0.25)));
  const hex = (a) => '#' + a.map((x) => x.toString(16).padStart(2, '0')).join('');
  assert.equal(diffColor(2.5, 10), hex([ch(0xf7, 0xb2), ch(0xf7, 0x18), ch(0xf7, 0x2b)]));
  assert.equal(diffColor(-2.5, 10), hex([ch(0xf7, 0x21), ch(0xf7, 0x66), ch(0xf7, 0xac)]));
});

test('legendSteps goes blue, grey, red', () => {
  const s = legendSteps(4);
  assert.equal(s.length, 11);
  assert.deepEqual(s[0], [-4, '#2166ac']);
  assert.equal(s[5][1], SAME);
  assert.deepEqual(s[10], [4, '#b2182b']);
});

test('diffKey matches anonymous names as compare does', () => {
  assert.equal(diffKey({ name: '(anonymous)', line: 3, col: 4 }), diffKey({ name: '', line: 3, col: 4 }));
  assert.equal(diffKey({ name: '(anonymous) VM12:3', line: 3, col: 4 }), diffKey({ name: '', line: 3, col: 4 }));
  assert.notEqual(diffKey({ name: 'f', line: 3, col: 4 }), diffKey({ name: 'f', line: 3, col: 5 }));
  assert.notEqual(diffKey({ name: '(gc)', event: true }), diffKey({ name: '(gc)', line: -1, col: -1 }));
});

test('indexDiff and fmtDelta', () => {
  const d = indexDiff({ functions: [{ name: 'a', line: 1, col: 1, deltaSelfMs: -3 }, { name: 'b', line: 1, col: 1, deltaSelfMs: 2 }] });
  assert.equal(d.maxDelta, 3);
  assert.equal(d.rows.get(diffKey({ name: 'b', line: 1, col: 1 })).deltaSelfMs, 2);
  assert.equal(fmtDelta(0), '±0');
  assert.equal(fmtDelta(1.5), '+1.50 ms');
  assert.equal(fmtDelta(-0.25), '−0.250 ms');
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { niceStep, ticks } from '../ruler.js';

test('niceStep picks 1, 2 or 5 × 10^k', () => {
  const cases = [[0.7, 1], [1, 1], [1.01, 2], [3, 5], [6, 10], [0.3, 0.5], [0.1 * 3, 0.5], [0.2, 0.2], [120, 200], [4999, 5000], [5001, 10000]];
  for (const [min, want] of cases) assert.equal(niceStep(min), want, `niceStep(${min})`);
  assert.equal(niceStep(0), 1);
  assert.equal(niceStep(-5), 1);
});

test('ticks: 1 ms over 1000 px, every 100 µs, in ms', () => {
  const r = ticks({ from: 0, to: 1000 }, 1000, 90);
  assert.equal(r.step, 100);
  assert.equal(r.unit, 'ms');
  assert.equal(r.ticks.length, 11);
  assert.deepEqual(r.ticks.slice(0, 3).map((k) => k.label), ['0.0 ms', '0.1 ms', '0.2 ms']);
  assert.equal(r.ticks[10].label, '1.0 ms');
  assert.equal(r.ticks[5].x, 500);
});

test('ticks follow the window: a panned, zoomed window starts at the first multiple', () => {
  const r = ticks({ from: 12345, to: 12845 }, 500, 90);
  assert.equal(r.step, 100); // 90 µs at least → 100 µs
  assert.equal(r.ticks[0].t, 12400);
  assert.equal(r.ticks[0].label, '12.4 ms');
  assert.ok(Math.abs(r.ticks[0].x - 55) < 1e-9);
  for (const k of r.ticks) assert.ok(k.x >= 0 && k.x <= 500);
  // Consecutive ticks are one step and at least minPx apart.
  for (let i = 1; i < r.ticks.length; i++) {
    assert.ok(Math.abs(r.ticks[i].t - r.ticks[i - 1].t - r.step) < 1e-6);
    assert.ok(r.ticks[i].x - r.ticks[i - 1].x >= 90 - 1e-9);
  }
});

test('ticks switch to seconds at 100 ms steps', () => {
  const r = ticks({ from: 0, to: 3e6 }, 1200, 90); // 3 s: 225 ms → 500 ms
  assert.equal(r.step, 5e5);
  assert.equal(r.unit, 's');
  assert.deepEqual(r.ticks.map((k) => k.label), ['0.0 s', '0.5 s', '1.0 s', '1.5 s', '2.0 s', '2.5 s', '3.0 s']);
  const short = ticks({ from: 0, to: 9e5 }, 1000, 90); // under a second: ms
  assert.equal(short.step, 1e5);
  assert.deepEqual(short.ticks.slice(0, 3).map((k) => k.label), ['0 ms', '100 ms', '200 ms']);
  const long = ticks({ from: 0, to: 60e6 }, 1000, 90); // a minute: 5 s steps
  assert.equal(long.step, 1e7);
  assert.equal(long.ticks[1].label, '10 s');
});

test('ticks of tiny windows keep enough decimals', () => {
  const r = ticks({ from: 1000, to: 1001 }, 1000, 100); // 1 µs: 0.1 µs steps
  assert.ok(Math.abs(r.step - 0.1) < 1e-12);
  assert.equal(r.ticks[0].label, '1.0000 ms');
  assert.equal(r.ticks[1].label, '1.0001 ms');
  const labels = r.ticks.map((k) => k.label);
  assert.equal(new Set(labels).size, labels.length, 'labels are distinct');
});

test('ticks of an empty window or width are none', () => {
  assert.deepEqual(ticks({ from: 5, to: 5 }, 100).ticks, []);
  assert.deepEqual(ticks({ from: 0, to: 5 }, 0).ticks, []);
});

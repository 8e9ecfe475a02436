import test from 'node:test';
import assert from 'node:assert/strict';
import { layoutGraph, nameColor } from '../flamegraph.js';

test('layoutGraph places children left to right under their parent', () => {
  const rows = [
    { id: 0, parent: -1, totalMs: 10 },
    { id: 1, parent: 0, totalMs: 6 },
    { id: 3, parent: 1, totalMs: 2 },
    { id: 2, parent: 0, totalMs: 3 },
    { id: 9, parent: 7, totalMs: 1 }, // its parent was trimmed: left out
  ];
  const b = layoutGraph(rows);
  assert.equal(b.length, 4);
  const by = Object.fromEntries(b.map((x) => [x.row.id, x]));
  assert.deepEqual([by[0].x, by[0].w, by[0].depth], [0, 1, 0]);
  assert.deepEqual([by[1].x, by[1].w, by[1].depth], [0, 0.6, 1]);
  assert.deepEqual([by[3].x, by[3].w, by[3].depth], [0, 0.2, 2]);
  assert.deepEqual([by[2].x, by[2].w, by[2].depth], [0.6, 0.3, 1]);
});

test('nameColor is stable and warm', () => {
  assert.equal(nameColor('main'), nameColor('main'));
  assert.match(nameColor('<script>'), /^hsl\(\d+, \d+%, \d+%\)$/);
});

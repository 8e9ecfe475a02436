'use strict';
// Workload: a mix of typical application code.
//   - JSON.parse / JSON.stringify of generated records
//   - regular expressions (match, replace with a callback, split)
//   - Array.prototype.sort with a comparator closure
//   - allocation-heavy code (many short-lived objects and strings) so that
//     "(garbage collector)" samples appear
//   - closures and anonymous functions (arrow functions passed to map/filter/reduce)
//   - class methods, a getter, a static method and a subclass override
// Deterministic: a fixed-seed PRNG drives all data.

function makeRng(seed) {
  let s = seed >>> 0;
  return function next() {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
const rand = makeRng(42);

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];

function makeRecord(i) {
  return {
    id: i,
    name: WORDS[(rand() * WORDS.length) | 0] + '-' + i,
    email: 'user' + i + '@example.' + (i % 3 === 0 ? 'org' : 'com'),
    score: Math.round(rand() * 10000) / 100,
    tags: [WORDS[i % 10], WORDS[(i * 7) % 10]],
    nested: {a: i, b: [i, i + 1, i + 2], c: {d: 'x'.repeat(i % 8)}},
  };
}

class Shape {
  constructor(w, h) {
    this.w = w;
    this.h = h;
  }
  area() {
    return this.w * this.h;
  }
  get perimeter() {
    return 2 * (this.w + this.h);
  }
  static compare(a, b) {
    return a.area() - b.area() || a.perimeter - b.perimeter;
  }
}

class Triangle extends Shape {
  area() {
    return super.area() / 2;
  }
}

function jsonRoundTrip(n) {
  const records = [];
  for (let i = 0; i < n; i++) records.push(makeRecord(i));
  let total = 0;
  for (let k = 0; k < 4; k++) {
    const text = JSON.stringify(records);
    const back = JSON.parse(text);
    total += back.length + text.length;
  }
  return total;
}

function regexWork(n) {
  const emailRe = /^([a-z0-9]+)@example\.(com|org)$/;
  const wordRe = /\b([a-z]+)-(\d+)\b/g;
  let hits = 0;
  let text = '';
  for (let i = 0; i < n; i++) {
    const r = makeRecord(i);
    const m = emailRe.exec(r.email);
    if (m && m[2] === 'org') hits++;
    text += r.name + ' ';
  }
  const replaced = text.replace(wordRe, (_, w, d) => w.toUpperCase() + ':' + (Number(d) * 2));
  const parts = replaced.split(/\s+/).filter(s => s.includes(':'));
  return hits + parts.length;
}

function sortWork(n) {
  const arr = [];
  for (let i = 0; i < n; i++) {
    arr.push(i % 2 ? new Triangle(1 + rand() * 100, 1 + rand() * 100) : new Shape(1 + rand() * 100, 1 + rand() * 100));
  }
  arr.sort(Shape.compare);
  const byKey = key => (a, b) => a[key] - b[key];  // closure factory
  const nums = arr.map(s => ({w: s.w, h: s.h, area: s.area()}));
  nums.sort(byKey('w'));
  nums.sort(byKey('area'));
  return nums.reduce((acc, x) => acc + x.area, 0);
}

function allocate(rounds) {
  // Many short-lived objects and strings: young-generation GCs (and a few
  // old-generation ones from the retained window).
  let keep = [];
  let sum = 0;
  for (let r = 0; r < rounds; r++) {
    const batch = [];
    for (let i = 0; i < 20000; i++) {
      batch.push({i, s: 'k' + i + ':' + r, arr: [i, r, i * r]});
    }
    sum += batch.length;
    keep.push(batch);
    if (keep.length > 8) keep = keep.slice(4);
  }
  return sum + keep.length;
}

function makeCounter() {
  let count = 0;
  return {
    inc: () => ++count,
    add(n) {
      for (let i = 0; i < n; i++) this.inc();
      return count;
    },
  };
}

function main() {
  const results = [];
  const counter = makeCounter();
  for (let round = 0; round < 3; round++) {
    results.push(jsonRoundTrip(4000));
    results.push(regexWork(20000));
    results.push(Math.round(sortWork(20000)));
    results.push(allocate(40));
    results.push(counter.add(200000));
    results.push([1, 2, 3].map(function (x) { return x * round; }).join('|'));
  }
  return results;
}

console.log('mix:', main().join(','));

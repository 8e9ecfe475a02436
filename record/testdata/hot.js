// A CPU-bound script for the record tests. Its top level spends ~100 ms in
// buildTable (start-up), then main spends argv[2] ms (default 400) in
// hotLoop. It prints "ready" once main starts.
'use strict';
// No on-stack replacement: a frame running in OSR code can be missing
// from V8's samples (its time goes to the caller), which would make the
// hot function of these tests depend on when V8 tiers up.
require('node:v8').setFlagsFromString('--no-use-osr');

function buildTable() {
  const end = Date.now() + 100;
  const t = [];
  while (Date.now() < end) {
    for (let i = 0; i < 1000; i++) t.push(Math.cbrt(i));
    if (t.length > 1e5) t.length = 0;
  }
  return t;
}

function hotLoop(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(i) * Math.sin(i);
  return x;
}

function main(ms) {
  console.log('ready');
  const end = Date.now() + ms;
  let s = 0;
  while (Date.now() < end) s += hotLoop(1e5);
  return s;
}

const table = buildTable();
const ms = Number(process.argv[2] || 400);
console.log('done', main(ms) !== 0, table.length >= 0);

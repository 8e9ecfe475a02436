// Starts argv[2] (default 2) worker threads; each spends ~300 ms in
// workerHot, while the main thread waits for them.
'use strict';
// No on-stack replacement: a frame running in OSR code can be missing
// from V8's samples (its time goes to the caller), which would make the
// hot function of these tests depend on when V8 tiers up.
require('node:v8').setFlagsFromString('--no-use-osr');
const { Worker, isMainThread, threadId } = require('node:worker_threads');

function workerHot(ms) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) for (let i = 0; i < 1e5; i++) x += Math.sqrt(i);
  return x;
}

if (isMainThread) {
  const n = Number(process.argv[2] || 2);
  let left = n;
  for (let i = 0; i < n; i++) {
    const w = new Worker(__filename, { name: 'cruncher-' + (i + 1) });
    w.on('exit', () => { if (--left === 0) console.log('all workers done'); });
  }
} else {
  console.log('worker', threadId, workerHot(300) > 0);
}

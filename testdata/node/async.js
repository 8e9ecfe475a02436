'use strict';
// Workload: asynchronous code with idle gaps, so the profile has "(idle)" samples
// between bursts of work and stacks that start at event-loop callbacks instead of
// the main module.
//   - setTimeout callbacks separated by idle waits (~20 ms each)
//   - promise chains and async/await (microtasks: processTicksAndRejections)
//   - setImmediate callbacks (check phase)
//   - process.nextTick callbacks
// Total wall time ~1 s, roughly half of it idle.

function busy(ms) {
  // Burn CPU for about `ms` milliseconds, with an inner function so the stack
  // has more than one user frame.
  const end = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let x = 0;
  while (process.hrtime.bigint() < end) x = spin(x);
  return x;
}

function spin(x) {
  for (let i = 0; i < 2000; i++) x = (x * 31 + i) % 1000003;
  return x;
}

function sleep(ms) {
  return new Promise(resolve => setTimeout(resolve, ms));
}

function onTimer(i) {
  return busy(8 + (i % 3) * 2);
}

async function asyncStep(i) {
  await null;
  const a = busy(4);
  await Promise.resolve(i);
  return a + busy(3);
}

function immediateWork(i) {
  return new Promise(resolve => setImmediate(() => resolve(busy(5) + i)));
}

function tickWork(i) {
  return new Promise(resolve => process.nextTick(function tickCallback() {
    resolve(busy(2) + i);
  }));
}

async function main() {
  let acc = 0;
  for (let i = 0; i < 12; i++) {
    await sleep(20);                                // idle gap
    acc += onTimer(i);                              // timer callback work
    acc += await asyncStep(i);                      // promise / microtask work
    acc += await immediateWork(i);                  // setImmediate work
    acc += await tickWork(i);                       // nextTick work
    const all = await Promise.all([0, 1, 2].map(async k => {
      await sleep(5 + k * 5);                       // shorter idle gaps, overlapping timers
      return busy(2);
    }));
    acc += all.length;
  }
  await new Promise(resolve => setTimeout(() => {
    acc += busy(10);
    resolve();
  }, 30));
  return acc;
}

main().then(acc => console.log('async: done', acc > 0));

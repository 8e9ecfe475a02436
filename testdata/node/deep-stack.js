'use strict';
// Workload: stacks deeper than V8's sampler limit. V8's sampler records at most
// 255 *physical* frames per tick (TickSample::kMaxFramesCount); the profiler keeps
// the innermost ones, so a truncated stack hangs directly under (root), starting
// at whatever function sat at the cut (stepA..stepE below, or even a Node
// bootstrap function such as Module._compile when the cut falls there).
//
// Two phases:
//   1. inlinedChain: a monomorphic chain chainA -> chainB -> chainC -> chainA ...
//      to depth 421. TurboFan inlines these calls into each other, so 255
//      physical frames expand to more than 255 logical frames: once optimized, the
//      stacks come out complete (~430 frames deep, not truncated); a shallow
//      warm-up gets the chain optimized first, so few samples (if any) are cut.
//   2. megamorphic: stepA..stepE call each other through a table; every call
//      site sees all five targets (megamorphic => never inlined), to depths
//      100 (fits), 240 (near the limit), 320 and 421 (truncated). A shallow
//      warm-up runs first so the IC transitions and deopts happen on short stacks.

const LEAF = 400000;
let leafIters = LEAF;  // lowered during the warm-ups

function leafWork(seed, n) {
  let x = seed | 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
  }
  return x;
}

// ---- phase 1: inlinable (monomorphic) recursion ----
function chainA(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : chainB(depth + 1, target) + 1;
}
function chainB(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : chainC(depth + 1, target) + 1;
}
function chainC(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : chainA(depth + 1, target) + 1;
}

function inlinedChain(iters) {
  // Warm up on short stacks with a cheap leaf so the chain is optimized (and
  // inlined) before the deep runs.
  leafIters = 10;
  for (let i = 0; i < 3000; i++) chainA(0, 30);
  leafIters = LEAF;
  let s = 0;
  for (let i = 0; i < iters; i++) s = (s + chainA(0, 421)) | 0;
  return s;
}

// ---- phase 2: megamorphic recursion (not inlined) ----
// stepA..stepE pick their callee from a table; every call site sees all five
// targets, and TurboFan does not inline a megamorphic call, so each step is a
// real (physical) frame.
const STEPS = [];
function pick(depth) {
  return STEPS[(depth * 3 + (depth >> 2)) % 5];
}
function stepA(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : pick(depth)(depth + 1, target) + 1;
}
function stepB(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : pick(depth)(depth + 1, target) + 1;
}
function stepC(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : pick(depth)(depth + 1, target) + 1;
}
function stepD(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : pick(depth)(depth + 1, target) + 1;
}
function stepE(depth, target) {
  return depth >= target ? leafWork(depth, leafIters) : pick(depth)(depth + 1, target) + 1;
}
STEPS.push(stepA, stepB, stepC, stepD, stepE);

function megamorphic(target, iters) {
  let s = 0;
  for (let i = 0; i < iters; i++) s = (s + stepA(0, target)) | 0;
  return s;
}

function warmUp() {
  // Shallow runs with a cheap leaf first, so the call-site feedback goes
  // megamorphic (and the resulting deoptimizations happen) on short stacks.
  leafIters = 10;
  let s = 0;
  for (let i = 0; i < 2000; i++) s = (s + stepA(0, 40)) | 0;
  leafIters = LEAF;
  return s;
}

function main() {
  const out = [];
  out.push(inlinedChain(200));
  out.push(warmUp());
  for (let round = 0; round < 2; round++) {
    out.push(megamorphic(100, 75), megamorphic(240, 75), megamorphic(320, 75), megamorphic(421, 75));
  }
  return out;
}

console.log('deep-stack:', main().join(','));

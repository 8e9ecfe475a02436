'use strict';
// Workload: plain and mutual recursion.
//   fib(n)            - classic doubly recursive Fibonacci (deep, bushy call tree of one function)
//   isEven / isOdd    - mutual recursion (alternating frames of two functions)
//   ackermann(2, n)   - another recursive shape (nested calls as arguments), depth < 170
// Deterministic: no randomness, no I/O besides the final line.

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function isEven(n) {
  return n === 0 ? true : isOdd(n - 1);
}

function isOdd(n) {
  return n === 0 ? false : isEven(n - 1);
}

function ackermann(m, n) {
  if (m === 0) return n + 1;
  if (n === 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

function runFib() {
  let s = 0;
  for (let i = 0; i < 8; i++) s += fib(27);
  return s;
}

function runParity() {
  let evens = 0;
  // depth stays below ~210 frames: no truncation in this workload (see deep-stack.js)
  for (let i = 0; i < 100000; i++) {
    if (isEven(100 + (i % 100))) evens++;
  }
  return evens;
}

function runAckermann() {
  let s = 0;
  for (let i = 0; i < 3000; i++) s += ackermann(2, 40 + (i % 40));
  return s;
}

function main() {
  const out = [];
  for (let round = 0; round < 3; round++) {
    out.push(runFib(), runParity(), runAckermann());
  }
  return out;
}

console.log('recursion:', main().join(','));

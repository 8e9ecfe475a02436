#!/usr/bin/env node
// self-times.mjs: load a profile with the Firefox Profiler's own loader (npm
// @firefox-devtools/profiler-cli, pinned in package.json) and print, as one
// JSON document on stdout, what the Profiler computes for every thread: the
// per-function self and total weight (`thread functions`, idle included) and
// the category breakdown (`thread samples`).
//
// Usage: node self-times.mjs FILE
//
// Output:
//   {"cli": "0.10.0", "profile": {name, threadCount},
//    "threads": [{index, handle, name, tid, pid, weightType,
//                 functions: [{index, name, library, self, total}],
//                 categories: [{index, name, value}]}]}
// Values are in the thread's weight unit: ms for "tracing-ms" samples.
//
// The CLI keeps the loaded profile in a daemon and answers each command from
// it. `profiler-cli load` gives a new daemon only 500 ms to start, which a
// busy machine (parallel tests) exceeds, so this script starts the daemon
// itself (`profiler-cli.js --daemon FILE --session ID`, the command `load`
// runs) in a temporary session directory, waits for it without such a limit,
// and always ends it (SIGTERM to its pid, SIGKILL if it lingers).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, 'node_modules', '@firefox-devtools', 'profiler-cli');
const cli = join(pkgDir, 'dist', 'profiler-cli.js');

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node self-times.mjs FILE\n');
  process.exit(2);
}

const sessionDir = mkdtempSync(join(tmpdir(), 'jsprof-fxcli-'));
const session = 'jsprof';
const env = { ...process.env, PROFILER_CLI_SESSION_DIR: sessionDir };

function run(args) {
  return execFileSync(process.execPath, [cli, ...args, '--session', session], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function json(args) {
  const out = run([...args, '--json']);
  try {
    return JSON.parse(out);
  } catch (e) {
    throw new Error(`profiler-cli ${args.join(' ')}: not JSON: ${out.slice(0, 500)}`);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function daemonLog() {
  const log = join(sessionDir, `${session}.log`);
  return existsSync(log) ? readFileSync(log, 'utf8') : '';
}

function connects(socketPath) {
  return new Promise((resolve) => {
    const c = connect(socketPath);
    c.setTimeout(1000);
    c.on('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.on('error', () => resolve(false));
    c.on('timeout', () => {
      c.destroy();
      resolve(false);
    });
  });
}

// waitForDaemon waits until the daemon has written its session metadata,
// answers on its socket and has loaded the profile (or failed to).
//
// No CLI command may run before: a client that finds no metadata removes
// the session's files, socket included, which strands a daemon that is
// still starting.
async function waitForDaemon(child) {
  const deadline = Date.now() + 120_000;
  const meta = join(sessionDir, `${session}.json`);
  const sock = join(sessionDir, `${session}.sock`);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `the profiler-cli daemon exited (${child.exitCode ?? child.signalCode}) while loading:\n${daemonLog().slice(-2000)}`,
      );
    }
    const log = daemonLog();
    if (log.includes('Failed to load profile')) {
      throw new Error(`the Firefox Profiler could not load ${file}:\n${log.slice(-2000)}`);
    }
    if (log.includes('Profile loaded successfully') && existsSync(meta) && (await connects(sock))) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`the profiler-cli daemon was not ready within 120 s:\n${log.slice(-2000)}`);
    }
    await sleep(50);
  }
}

const child = spawn(process.execPath, [cli, '--daemon', resolve(file), '--session', session], {
  env,
  stdio: 'ignore',
});
// Interrupted (a test's timeout): end the daemon first.
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    child.kill('SIGTERM');
    rmSync(sessionDir, { recursive: true, force: true });
    process.exit(1);
  });
}
try {
  await waitForDaemon(child);
  const info = json(['profile', 'info', '--all']);
  const threads = [];
  for (const proc of info.processes) {
    for (const t of proc.threads) {
      const handle = t.threadHandle;
      const fns = json(['thread', 'functions', '--thread', handle, '--include-idle', '--limit', '0']);
      const samples = json(['thread', 'samples', '--thread', handle, '--include-idle']);
      threads.push({
        index: t.threadIndex,
        handle,
        name: t.name,
        tid: String(t.tid),
        pid: String(proc.pid),
        weightType: fns.weightType,
        functions: fns.functions.map((f) => ({
          index: f.functionIndex,
          name: f.name,
          library: f.library ?? '',
          self: f.selfSamples,
          total: f.totalSamples,
        })),
        categories: (samples.categoryBreakdown?.categories ?? []).map((c) => ({
          index: c.categoryIndex,
          name: c.name,
          value: c.samples,
        })),
      });
    }
  }
  threads.sort((a, b) => a.index - b.index);
  const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  process.stdout.write(
    JSON.stringify({ cli: version, profile: { name: info.name, threadCount: info.threadCount }, threads }) + '\n',
  );
} catch (e) {
  const msg = e.stderr ? `${e.message}\n${e.stderr}` : String(e.stack || e);
  process.stderr.write(`self-times.mjs: ${msg}\n`);
  process.exitCode = 1;
} finally {
  // The daemon is this script's child: end it by its pid (it shuts down
  // cleanly on SIGTERM), forcibly if it does not within 5 s.
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    for (let i = 0; i < 50 && child.exitCode === null && child.signalCode === null; i++) {
      await sleep(100);
    }
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  }
  rmSync(sessionDir, { recursive: true, force: true });
}

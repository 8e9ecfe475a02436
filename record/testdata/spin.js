// Spins in spinHot until stopped (or after argv[2] ms, default 60 s, as a
// safety net), yielding to the event loop every ~10 ms so that the
// inspector can open (SIGUSR1) and answer. Prints "ready PID" first. With
// SPIN_IGNORE_SIGUSR1=1 it handles SIGUSR1 itself, so that the signal no
// longer opens the inspector.
'use strict';
// No on-stack replacement: a frame running in OSR code can be missing
// from V8's samples (its time goes to the caller), which would make the
// hot function of these tests depend on when V8 tiers up.
require('node:v8').setFlagsFromString('--no-use-osr');
// Keep the named functions out of TurboFan, so that they are never inlined
// into their callers and always show as themselves in the profile.
require('node:v8').setFlagsFromString('--allow-natives-syntax');
function noInline(f) { eval('%NeverOptimizeFunction(f)'); return f; }
noInline(spinHot);

function spinHot() {
  const end = Date.now() + 10;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  setImmediate(spinHot);
  return x;
}

if (process.env.SPIN_IGNORE_SIGUSR1 === '1') process.on('SIGUSR1', () => {});
console.log('ready ' + process.pid);
setTimeout(() => process.exit(0), Number(process.argv[2] || 60000));
spinHot();

// Waits for a debugger in the middle of its run, as a program may
// (inspector.waitForDebugger): under jsprof record it must be resumed, not
// hang. Node tells it waits (NodeRuntime.waitingForDebugger) as it does
// when it took the recorder's first resume too early.
'use strict';
const inspector = require('node:inspector');
console.log('before');
inspector.waitForDebugger();
console.log('after');

// Package record captures CPU profiles from live JavaScript runtimes over
// the Chrome DevTools protocol (https://chromedevtools.github.io/devtools-protocol/),
// spoken over a websocket (github.com/coder/websocket), loopback only.
//
// Node (Node starts a program; Attach and AttachPID join a running one):
// Profiler.enable, Profiler.setSamplingInterval (µs), Profiler.start, and
// at the end Profiler.stop, whose result.profile is kept byte for byte as
// V8 sent it: the JSON of a .cpuprofile, the same form node --cpu-prof
// writes. Worker threads are found with NodeWorker.enable
// (waitForDebuggerOnStart, so a worker is profiled from its first line)
// and spoken to through NodeWorker.sendMessageToWorker; each gives its own
// Thread. NodeRuntime.notifyWhenWaitingForDisconnect makes a thread that
// ends (the program exits, process.exit, worker.terminate) wait until its
// profile has been collected.
//
// Chromium (Chrome): a Performance-panel trace of loading a page, with
// DevTools' trace categories (TraceCategories, JS samples included):
// Tracing.start with transferMode ReturnAsStream (gzip or not), then
// Tracing.end, Tracing.tracingComplete and IO.read until EOF; the stream is
// written as Chromium sends it.
//
// Targets are found through /json/version and /json/list. Every network
// wait has a timeout and follows ctx. Cancelling ctx (Ctrl-C) is a normal
// way to stop: the profiles are collected and returned with Stopped set to
// StopInterrupted. A connection lost while recording returns what had been
// received, with StopLost and the error.
//
// The package never prints; Progress callbacks carry status lines.
package record

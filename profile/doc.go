// Package profile is jsprof's core model of a sampled CPU profile.
//
// A Profile is a set of columnar tables linked by dense, typed indexes:
//
//   - Strings: interned strings (function names, URLs, script ids); StringID 0 is "".
//   - Frames: distinct call frames (function name, URL, script id, 0-based line and
//     column, kind). Frames are shared by all threads.
//   - Nodes: call-tree nodes (a call path ending in a frame). Each thread owns a
//     contiguous range of nodes that starts with its root; every node's parent comes
//     before it (preorder), so one forward pass sees parents first.
//   - Edges: extra caller→callee edges of a call-graph profile (XS), beyond the
//     first parent recorded in Node.Parent. Empty for tree-shaped profiles.
//   - Samples: one row per sample (node, time, optional source line), grouped by
//     thread, sorted by time within each thread.
//   - Threads: pid, tid, name, the thread's node and sample ranges and its time span.
//   - Diagnostics: counted oddities of the input that were repaired or dropped.
//
// Input ids are renumbered densely while parsing; the original ids are kept in
// Node.InputID because tools and users refer to them.
//
// Times are Time values: int64 nanoseconds on the clock of the input file (V8
// TimeTicks for .cpuprofile, the trace clock for traces, Unix epoch for XS). They
// are absolute, not relative to the profile start, so that the threads of a trace
// line up without offsets.
//
// Validate checks every invariant; readers call it before they return. String
// prints a deterministic, line-based dump used by golden tests.
package profile

package calls_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/oracle"
	"github.com/jsprof/jsprof/profile"
)

// instantTrace is a web trace whose renderer runs one JS function, inside
// which an instant event (ph "I") carries a dur, as some Chrome events do.
const instantTrace = `{"traceEvents":[
{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":50,"cat":"disabled-by-default-devtools.timeline","s":"t","args":{"data":{"frames":[{"frame":"F","url":"https://a.example/","processId":7}]}}},
{"name":"thread_name","ph":"M","pid":7,"tid":1,"args":{"name":"CrRendererMain"}},
{"name":"Profile","ph":"P","id":"0x1","pid":7,"tid":1,"ts":100,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"startTime":100}}},
{"name":"ProfileChunk","ph":"P","id":"0x1","pid":7,"tid":1,"ts":100,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"cpuProfile":{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},
 {"id":2,"parent":1,"callFrame":{"functionName":"work","scriptId":3,"url":"https://a.example/a.js","lineNumber":1,"columnNumber":1}}],
 "samples":[2,2,2,2,2,2,2,2]},"timeDeltas":[20,100,100,100,100,100,100,100]}}},
{"name":"RunTask","ph":"X","pid":7,"tid":1,"ts":105,"dur":900,"cat":"disabled-by-default-devtools.timeline"},
{"name":"FunctionCall","ph":"X","pid":7,"tid":1,"ts":110,"dur":880,"cat":"devtools.timeline","args":{"data":{}}},
{"name":"ScheduleStyleRecalculation","ph":"I","pid":7,"tid":1,"ts":400,"dur":150,"s":"t","cat":"devtools.timeline","args":{"data":{}}}
]}`

// TestOracleInstantWithDuration requires an instant event that carries a
// dur to count as DevTools counts it: treify subtracts its duration from
// the enclosing call's self time, and the flame chart draws it that long.
func TestOracleInstantWithDuration(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against the DevTools engine: not in -short mode")
	}
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "instant.json")
	if err := os.WriteFile(file, []byte(instantTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := format.ReadFile(file, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dump, err := oracle.RunEntries(file, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ot := range dump.Threads {
		ti := findThread(p, ot.PID, ot.TID)
		if ti < 0 || len(ot.Calls) == 0 {
			continue
		}
		tl, err := calls.NewTimeline(p, profile.ThreadID(ti))
		if err != nil {
			t.Fatal(err)
		}
		got, entries := tl.IntegrateEntries(calls.IntegrateOptions{})
		compareCalls(t, p, got, ot.Calls)
		compareEntries(t, p, got, entries, ot.Entries)
		n++
	}
	if n != 1 {
		t.Fatalf("compared %d threads, want the renderer's", n)
	}
}

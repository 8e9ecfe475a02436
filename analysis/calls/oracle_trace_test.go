package calls_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/oracle"
	"github.com/jsprof/jsprof/profile"
)

// traceFiles lists every Chrome trace of the shared corpus.
func traceFiles(t *testing.T) []string {
	t.Helper()
	corpus, ok := oracle.CorpusDir()
	if !ok {
		t.Skip("../shared/corpus is absent: no traces to compare")
	}
	var files []string
	for _, dir := range []string{"devtools", "speedscope", "firefox"} {
		filepath.WalkDir(filepath.Join(corpus, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(d.Name(), ".cpuprofile") {
				return nil
			}
			if n := d.Name(); strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".json.gz") || strings.HasSuffix(n, ".gz") {
				files = append(files, path)
			}
			return nil
		})
	}
	return files
}

// TestOracleTraceProfileCalls requires, for every thread the DevTools engine
// reports calls for on every corpus trace it can read, ProfileCalls identical
// to jsprof's: node, frame, ts, dur and self within 1e-3 µs.
func TestOracleTraceProfileCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against the DevTools engine: not in -short mode")
	}
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	var threads, callCount, entryCount, files atomic.Int64
	t.Run("files", func(t *testing.T) {
		for _, file := range traceFiles(t) {
			rel := filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file)
			t.Run(rel, func(t *testing.T) {
				t.Parallel()
				p, jsErr := format.ReadFile(file, nil, format.Options{})
				dump, err := oracle.RunEntries(file, t.TempDir())
				if err != nil {
					if jsErr != nil {
						t.Logf("neither reads it: jsprof: %v", jsErr)
						return
					}
					t.Logf("the reference engine cannot read it (jsprof can): %v", firstLine(err.Error()))
					return
				}
				if jsErr != nil {
					if len(dump.Threads) == 0 {
						t.Logf("jsprof rejects it and the engine finds no threads: %v", jsErr)
						return
					}
					t.Fatalf("jsprof: %v", jsErr)
				}
				files.Add(1)
				for _, ot := range dump.Threads {
					if len(ot.Calls) == 0 {
						continue
					}
					ti := findThread(p, ot.PID, ot.TID)
					if ti < 0 {
						t.Errorf("engine thread pid %d tid %d (%s) with %d calls: no such thread in jsprof", ot.PID, ot.TID, ot.Name, len(ot.Calls))
						continue
					}
					tl, err := calls.NewTimeline(p, profile.ThreadID(ti))
					if err != nil {
						t.Fatal(err)
					}
					got, entries := tl.IntegrateEntries(calls.IntegrateOptions{})
					t.Run(ot.Name, func(t *testing.T) {
						compareCalls(t, p, got, ot.Calls)
						compareEntries(t, p, got, entries, ot.Entries)
					})
					threads.Add(1)
					callCount.Add(int64(len(ot.Calls)))
					entryCount.Add(int64(len(ot.Entries)))
				}
			})
		}
	})
	t.Logf("compared %d threads, %d calls and %d flame-chart entries, in %d traces", threads.Load(), callCount.Load(), entryCount.Load(), files.Load())
}

func findThread(p *profile.Profile, pid, tid int64) int {
	for i, th := range p.Threads {
		if th.PID == pid && th.TID == tid {
			return i
		}
	}
	return -1
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// compareEntries requires the flame-chart entries DevTools draws: level,
// ts and dur within 1e-3 µs, name, and whether it is a call.
func compareEntries(t *testing.T, p *profile.Profile, cs []calls.Call, got []calls.Entry, want []oracle.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d entries, want %d", len(got), len(want))
	}
	bad := 0
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		name := ""
		if g.Call >= 0 {
			name = p.Str(p.NodeFrame(cs[g.Call].Node).Name)
		} else {
			name = p.Str(p.Events[g.Event].Name)
		}
		if int64(g.Level) != w.Level || !near(g.Start, w.Ts) || !near(g.Dur, w.Dur) || name != w.Name || (g.Call >= 0) != w.IsCall {
			if bad < 5 {
				t.Errorf("entry %d: got level %d %q ts %.3f dur %.3f call %t; want level %d %q ts %.3f dur %.3f call %t",
					i, g.Level, name, g.Start.Micros(), g.Dur.Micros(), g.Call >= 0, w.Level, w.Name, w.Ts, w.Dur, w.IsCall)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d entries differ", bad, len(want))
	}
}

// TestOracleWrittenTraces: a trace written by jsprof (its sampled threads'
// profiles and kept events) is read by the DevTools engine into the same
// ProfileCalls, thread by thread, as jsprof computes on the original.
func TestOracleWrittenTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against the DevTools engine: not in -short mode")
	}
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	corpus, ok := oracle.CorpusDir()
	if !ok {
		t.Skip("../shared/corpus is absent: no traces to write")
	}
	files, _ := filepath.Glob(filepath.Join(corpus, "devtools", "*.json.gz"))
	var threads, callCount atomic.Int64
	t.Run("files", func(t *testing.T) {
		for _, file := range files {
			t.Run(filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				p, err := format.ReadFile(file, nil, format.Options{Trace: chrometrace.Options{KeepArgs: true}})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Threads) == 0 {
					return // nothing sampled: nothing to compare
				}
				out := filepath.Join(t.TempDir(), "written.json")
				f, err := os.Create(out)
				if err != nil {
					t.Fatal(err)
				}
				if err := chrometrace.Write(f, p, chrometrace.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
				f.Close()
				dump, err := oracle.Run(out, t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				for ti := range p.Threads {
					tl, err := calls.NewTimeline(p, profile.ThreadID(ti))
					if err != nil {
						t.Fatal(err)
					}
					got := tl.Integrate(calls.IntegrateOptions{})
					var want []oracle.Call
					found := false
					for _, ot := range dump.Threads {
						if ot.PID == p.Threads[ti].PID && ot.TID == p.Threads[ti].TID {
							want, found = ot.Calls, true
						}
					}
					if !found && len(got) > 0 && p.Threads[ti].Events.Len() > 0 {
						t.Errorf("thread %d:%d: %d calls, but the engine reports no such thread", p.Threads[ti].PID, p.Threads[ti].TID, len(got))
						continue
					}
					if !found {
						continue // no trace events: the pinned engine makes no calls for it
					}
					t.Run(p.Threads[ti].Name, func(t *testing.T) { compareCalls(t, p, got, want) })
					threads.Add(1)
					callCount.Add(int64(len(want)))
				}
			})
		}
	})
	t.Logf("written traces: %d threads, %d calls compared", threads.Load(), callCount.Load())
}

package calls_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
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
	var threads, callCount, files atomic.Int64
	t.Run("files", func(t *testing.T) {
		for _, file := range traceFiles(t) {
			rel := filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file)
			t.Run(rel, func(t *testing.T) {
				t.Parallel()
				p, jsErr := format.ReadFile(file, nil, format.Options{})
				dump, err := oracle.Run(file, t.TempDir())
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
					got := tl.Integrate(calls.IntegrateOptions{})
					t.Run(ot.Name, func(t *testing.T) { compareCalls(t, p, got, ot.Calls) })
					threads.Add(1)
					callCount.Add(int64(len(ot.Calls)))
				}
			})
		}
	})
	t.Logf("compared %d threads, %d calls, in %d traces", threads.Load(), callCount.Load(), files.Load())
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

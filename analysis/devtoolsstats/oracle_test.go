package devtoolsstats

import (
	"bytes"
	"maps"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/oracle"
	"github.com/jsprof/jsprof/profile"
)

// TestOracleStyles requires the category table to be the pinned engine's
// Styles.getEventStyle, name for name.
func TestOracleStyles(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against the DevTools engine: not in -short mode")
	}
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	// Bare specifiers of `node -e` resolve from the working directory.
	cmd := exec.Command("node", "--input-type=module", "-e", `
import * as Trace from '@paulirish/trace_engine';
const m = Trace.Styles.maybeInitSylesMap();
for (const [k, v] of Object.entries(m)) console.log(k + '\t' + v.category.name);`)
	cmd.Dir = oracle.Dir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	want := map[string]string{}
	for line := range strings.Lines(string(out)) {
		name, cat, _ := strings.Cut(strings.TrimRight(line, "\n"), "\t")
		want[name] = cat
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if got := Category(name, "", false); got != want[name] {
			t.Errorf("Category(%q): got %q, want %q", name, got, want[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(eventCategory)) {
		if _, ok := want[name]; !ok {
			t.Errorf("%q has a category here but no style in the engine", name)
		}
	}
	t.Logf("%d event styles compared", len(want))
}

// tolerance is the largest difference allowed per category, in ns: the
// engine's output is rounded to 0.001 ms.
const tolerance = profile.Time(10_000) // 0.01 ms

// TestOracleCategoryMs compares, on every file of the shared DevTools
// corpus, each thread's Summary breakdown with categoryMs of
// dump-trees.mjs (per thread with ProfileCalls), using the engine's trace
// bounds as the window.
//
// The script walks all of a thread's entries, including those before the
// trace bounds (a TracingStartedInBrowser event after the first events of
// the thread moves the start of the bounds later), and takes idle as the
// bounds' length minus that sum, while the panel's statsForTimeRange only
// counts the window. So the test requires:
//
//   - the breakdown of every entry (Summary.Range over a span that covers
//     all entries, idle against the bounds) to equal categoryMs within
//     0.01 ms per category, on every thread;
//   - the breakdown of the bounds (StatsForTimeRange, what the panel shows)
//     to equal it too wherever no entry lies outside the bounds.
//
// It also reports how often TraceBounds gives the engine's bounds.
func TestOracleCategoryMs(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against the DevTools engine: not in -short mode")
	}
	corpus, ok := oracle.CorpusDir()
	if !ok {
		t.Skip("../shared/corpus is absent: no DevTools traces to compare")
	}
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(corpus, "devtools", "*.gz"))
	if err != nil || len(files) == 0 {
		t.Skipf("no files in %s", filepath.Join(corpus, "devtools"))
	}
	var mu sync.Mutex
	var sum struct {
		files, filesOK, withThreads, threads, threadsOK, windowOK, outside, boundsOK int
		maxDev                                                                       profile.Time
	}
	t.Run("files", func(t *testing.T) {
		for _, file := range files {
			t.Run(filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				dump, err := oracle.RunTrees(file, t.TempDir(), "--top", "1")
				if err != nil {
					t.Fatal(err)
				}
				p, err := format.ReadFile(file, nil, format.Options{})
				if err != nil {
					t.Fatalf("jsprof: %v", err)
				}
				window := [2]profile.Time{msTime(float64(dump.BoundsMs.Min)), msTime(float64(dump.BoundsMs.Max))}
				bounds := TraceBounds(p)
				boundsOK := near(bounds[0], window[0]) && near(bounds[1], window[1])
				if !boundsOK {
					t.Logf("TraceBounds: got [%.3f, %.3f] ms, engine [%.3f, %.3f] ms", bounds[0].Millis(), bounds[1].Millis(), window[0].Millis(), window[1].Millis())
				}
				fileOK, threads, threadsOK, windowOK, outside := true, 0, 0, 0, 0
				var maxDev profile.Time
				for _, ot := range dump.Threads {
					ti := findThread(p, int64(ot.PID), int64(ot.TID))
					if ti < 0 {
						t.Errorf("engine thread pid %d tid %d (%s): no such thread in jsprof", ot.PID, ot.TID, ot.Name)
						fileOK = false
						continue
					}
					tid := profile.ThreadID(ti)
					tl, err := calls.NewTimeline(p, tid)
					if err != nil {
						t.Fatal(err)
					}
					var cs []calls.Call
					if tl.IsTrace() {
						cs = tl.Integrate(calls.IntegrateOptions{})
					} else {
						cs = tl.Calls()
					}
					evs := ThreadEvents(p, tid, cs)
					threads++

					all := WholeTrace(evs, window)
					if got := ThreadWholeTrace(p, tid, cs, window); !maps.Equal(got, all) {
						t.Errorf("pid %d tid %d %s: ThreadWholeTrace: got %s, WholeTrace %s", ot.PID, ot.TID, ot.Name, got.format(), all.format())
					}
					dev, bad := deviation(ot, all)
					maxDev = max(maxDev, dev)
					if len(bad) > 0 {
						t.Errorf("pid %d tid %d %s: every entry: %s", ot.PID, ot.TID, ot.Name, strings.Join(bad, "; "))
						fileOK = false
					} else {
						threadsOK++
					}

					panel := StatsForTimeRange(evs, window[0], window[1])
					out := entriesOutside(evs, window)
					if out > 0 {
						outside++
					}
					if _, bad := deviation(ot, panel); len(bad) == 0 {
						windowOK++
					} else if out == 0 {
						t.Errorf("pid %d tid %d %s: window (no entry outside it): %s", ot.PID, ot.TID, ot.Name, strings.Join(bad, "; "))
					}
					if boundsOK {
						if got := ThreadStats(p, tid, cs, bounds); !maps.Equal(got, panel) {
							t.Errorf("ThreadStats with TraceBounds: got %s, want %s", got.format(), panel.format())
						}
					}
				}
				mu.Lock()
				defer mu.Unlock()
				sum.files++
				if threads > 0 {
					sum.withThreads++
				}
				sum.threads += threads
				sum.threadsOK += threadsOK
				sum.windowOK += windowOK
				sum.outside += outside
				sum.maxDev = max(sum.maxDev, maxDev)
				if fileOK {
					sum.filesOK++
				}
				if boundsOK {
					sum.boundsOK++
				}
			})
		}
	})
	t.Logf("every entry: %d of %d threads agree with categoryMs within 0.01 ms; %d of %d files agree (%d with threads); max deviation %.6f ms",
		sum.threadsOK, sum.threads, sum.filesOK, sum.files, sum.withThreads, sum.maxDev.Millis())
	t.Logf("window (the panel's Summary): %d of %d threads agree; %d threads have entries outside the bounds", sum.windowOK, sum.threads, sum.outside)
	t.Logf("TraceBounds equals the engine's bounds in %d of %d files", sum.boundsOK, sum.files)
}

// deviation returns the largest difference between the engine's breakdown
// and got, and a description of each category that differs by more than
// the tolerance.
func deviation(want oracle.TreesThread, got Stats) (profile.Time, []string) {
	var dev profile.Time
	var bad []string
	cats := map[string]bool{}
	for c := range want.CategoryMs {
		cats[c] = true
	}
	for c := range got {
		cats[c] = true
	}
	for _, c := range slices.Sorted(maps.Keys(cats)) {
		w := float64(want.CategoryMs[c]) // absent: 0
		if math.IsNaN(w) {
			bad = append(bad, c+": engine NaN")
			dev = math.MaxInt64
			continue
		}
		d := got[c] - msTime(w)
		d = max(d, -d)
		dev = max(dev, d)
		if d > tolerance {
			bad = append(bad, c+": got "+ftoa(got[c].Millis())+" ms, want "+ftoa(w)+" ms")
		}
	}
	return dev, bad
}

// entriesOutside counts the entries with a duration that start before the
// window or end after it.
func entriesOutside(evs []Event, window [2]profile.Time) int {
	n := 0
	for _, e := range evs {
		if e.Dur != 0 && (e.Start < window[0] || e.Start+e.Dur > window[1]) {
			n++
		}
	}
	return n
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// msTime converts float milliseconds to a Time.
func msTime(ms float64) profile.Time { return profile.TimeFromMicros(ms * 1000) }

// near reports whether two times are within 1 ns (the engine's bounds are
// float ms).
func near(a, b profile.Time) bool {
	d := a - b
	return d >= -1 && d <= 1
}

func findThread(p *profile.Profile, pid, tid int64) int {
	if p.Format != "chrome-trace" && len(p.Threads) == 1 {
		return 0 // DevTools wraps a bare profile as pid 1, tid 1
	}
	for i, th := range p.Threads {
		if th.PID == pid && th.TID == tid {
			return i
		}
	}
	return -1
}

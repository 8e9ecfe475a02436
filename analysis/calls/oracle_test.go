package calls_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/oracle"
	"github.com/jsprof/jsprof/profile"
)

// cpuProfiles lists the project's own profiles and every .cpuprofile of the
// shared corpus (when present).
func cpuProfiles(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/node/*.cpuprofile")
	corpus, ok := oracle.CorpusDir()
	if !ok {
		t.Logf("../shared/corpus is absent: checking only the project's own profiles")
		return files
	}
	filepath.WalkDir(corpus, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".cpuprofile") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// The reference engine cannot read these (it crashes on them); they are
// checked by their own tests.
var oracleCannotRead = map[string]string{
	"example.cpuprofile": "legacy head/timestamps form: the engine throws",
}

// TestOracleProfileCalls requires ProfileCalls identical to the DevTools
// engine's (node id, name, url, line, column, script id; ts, dur and self
// within 1e-3 µs) on every .cpuprofile of the corpus and of testdata.
func TestOracleProfileCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against the DevTools engine: not in -short mode")
	}
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	for _, file := range cpuProfiles(t) {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			if why, ok := oracleCannotRead[name]; ok {
				t.Skipf("not comparable: %s", why)
			}
			t.Parallel()
			p, err := format.ReadFile(file, nil, format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tl, err := calls.NewTimeline(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := tl.Calls()
			dump, err := oracle.Run(file, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if len(dump.Threads) != 1 {
				t.Fatalf("oracle reports %d threads, want 1", len(dump.Threads))
			}
			compareCalls(t, p, got, dump.Threads[0].Calls)
		})
	}
}

func compareCalls(t *testing.T, p *profile.Profile, got []calls.Call, want []oracle.Call) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d calls, want %d", len(got), len(want))
	}
	bad := 0
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		nd := &p.Nodes[g.Node]
		f := &p.Frames[nd.Frame]
		gs := g.Self.Micros()
		ok := nd.InputID == w.NodeID && p.Str(f.Name) == w.Name && p.Str(f.URL) == w.URL &&
			int64(f.Line) == w.Line && int64(f.Column) == w.Column && p.Str(f.ScriptID) == w.ScriptID &&
			near(g.Start, w.Ts) && near(g.Dur, w.Dur) && w.HasSelf && near(g.Self, w.Self) &&
			int64(g.SampleIndex) == w.SampleIndex
		if !ok {
			if bad < 5 {
				t.Errorf("call %d: got node %d %q %q %d:%d script %q ts %.3f dur %.3f self %.3f sample %d\n"+
					"            want node %d %q %q %d:%d script %q ts %.3f dur %.3f self %.3f sample %d",
					i, nd.InputID, p.Str(f.Name), p.Str(f.URL), f.Line, f.Column, p.Str(f.ScriptID), g.Start.Micros(),
					g.Dur.Micros(), gs, g.SampleIndex, w.NodeID, w.Name, w.URL, w.Line, w.Column, w.ScriptID, w.Ts, w.Dur, w.Self, w.SampleIndex)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d calls differ", bad, len(want))
	} else {
		t.Logf("%d calls identical", len(want))
	}
}

// near reports whether a time in ns is within 1e-3 µs of a float µs value.
// The comparison is done in integer ns: a float64 cannot hold epoch-µs
// clocks to the nanosecond.
func near(got profile.Time, wantUs float64) bool {
	d := got - profile.TimeFromMicros(wantUs)
	return d >= -1 && d <= 1
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }

// TestOracleWrittenCPUProfiles: a .cpuprofile written by jsprof is read by
// the DevTools engine into the same ProfileCalls as the original gives.
func TestOracleWrittenCPUProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against the DevTools engine: not in -short mode")
	}
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	for _, file := range cpuProfiles(t) {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := format.ReadFile(file, nil, format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tl, err := calls.NewTimeline(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "written.cpuprofile")
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := v8.Write(f, p, v8.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			f.Close()
			dump, err := oracle.Run(out, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if len(dump.Threads) != 1 {
				t.Fatalf("oracle reports %d threads, want 1", len(dump.Threads))
			}
			got, want := tl.Calls(), dump.Threads[0].Calls
			if _, legacy := oracleCannotRead[name]; legacy {
				// The engine cannot read the legacy original, but reads what
				// jsprof wrote; only the explicit end of the last sample is
				// lost (the engine extrapolates it), so compare the calls'
				// nodes and starts.
				if len(got) != len(want) {
					t.Fatalf("got %d calls, the engine %d", len(got), len(want))
				}
				for i := range got {
					if p.Nodes[got[i].Node].InputID != want[i].NodeID || !near(got[i].Start, want[i].Ts) {
						t.Fatalf("call %d: node %d at %v, the engine node %d at %v", i, p.Nodes[got[i].Node].InputID, got[i].Start, want[i].NodeID, want[i].Ts)
					}
				}
				return
			}
			compareCalls(t, p, got, want)
		})
	}
}

package speedscope_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// times is a function's self and total time.
type times struct{ Self, Total profile.Time }

// funcTimes returns jsprof's per-function self and total times of thread th
// under opts (the stacks of view.Stacks aggregated by calltree's
// StackBuilder), keyed by name, URL, line and column, and the sampled time.
//
// With final set, the samples are taken as they are, as speedscope takes a
// file's stacks: calls.NewTimeline's DevTools repairs are undone (a single
// (program) sample between two samples of one function made the previous
// sample's, a GC sample stacked on the previous sample's stack). The stacks
// Write exports have been through those repairs already; applying them again
// can change a few samples (sucrase.cpuprofile: 5 of 17,138), where a GC
// sample, on top of its stack in the file, no longer keeps DevTools from
// repairing the (program) sample after it.
func funcTimes(t *testing.T, p *profile.Profile, th profile.ThreadID, opts view.Options, final bool) (map[string]times, profile.Time) {
	t.Helper()
	tl, err := calls.NewTimeline(p, th)
	if err != nil {
		t.Fatal(err)
	}
	if final {
		// A tree-shaped thread's expanded nodes are its nodes.
		base := profile.NodeID(p.Threads[th].Nodes.Start)
		for i, n := range p.ThreadSamples(th).Node {
			tl.Samples[i] = int32(n - base)
		}
		tl.GC = -1
	}
	sb := calltree.NewStackBuilder(p, th)
	view.Stacks(tl, opts, func(s view.Stack) { sb.Add(s.Frames, s.Weight) })
	tree := sb.Finish()
	m := make(map[string]times, len(tree.Funcs))
	for _, f := range tree.Funcs {
		k := fmt.Sprintf("%q %q %d:%d", p.Str(f.Key.Name), p.Str(p.Frames[f.Frame].URL), f.Key.Line, f.Key.Column)
		m[k] = times{f.Self, f.Total}
	}
	return m, tree.TopDown[0].Total
}

// compareTimes reports the functions whose times differ by more than 1 ns,
// and returns how many functions agree.
func compareTimes(t *testing.T, what string, want, got map[string]times) int {
	t.Helper()
	near := func(a, b profile.Time) bool { return a-b <= 1 && b-a <= 1 }
	bad := 0
	for k, w := range want {
		if g, ok := got[k]; !ok || !near(g.Self, w.Self) || !near(g.Total, w.Total) {
			if bad++; bad <= 10 {
				t.Errorf("%s: %s: got self/total %d/%d (present %t), want %d/%d", what, k, g.Self, g.Total, ok, w.Self, w.Total)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			if bad++; bad <= 10 {
				t.Errorf("%s: %s: read back, but not in the original", what, k)
			}
		}
	}
	return len(want) - bad
}

// withoutScriptIDs returns a copy of p whose frames have no script id, so
// that profile.FunctionKey tells its functions apart by name, URL, line and
// column: the granularity a speedscope file can express. speedscope frames
// have no script id, so two functions that differ only by script id read
// back as one, and frames of one script under two URLs as two; roundTrip
// computes the expected times on this copy.
func withoutScriptIDs(p *profile.Profile) *profile.Profile {
	q := *p
	q.Frames = slices.Clone(p.Frames)
	for i := range q.Frames {
		q.Frames[i].ScriptID = 0
	}
	return &q
}

type writer func(io.Writer, *profile.Profile, speedscope.Options) error

var forms = []struct {
	name  string
	write writer
}{
	{"smaller", speedscope.Write},
	{"sampled", speedscope.WriteSampled},
	{"evented", speedscope.WriteEvented},
}

func mustMatcher(s string) view.Matcher {
	m, err := view.ParseMatcher(s)
	if err != nil {
		panic(err)
	}
	return m
}

// views are the view options the round trips cover; gaps marks those that
// remove samples from the middle of a thread.
var views = []struct {
	name string
	opts view.Options
	gaps bool
}{
	{"all", view.Options{}, false},
	{"js", view.Options{View: view.JS}, false},
	{"platform", view.Options{View: view.Platform}, false},
	{"range-collapsed", view.Options{From: 50e6, To: 300e6, CollapseRecursion: true}, false},
	{"drop-gc-merge-anonymous", view.Options{Drop: []view.Matcher{mustMatcher("(garbage collector)")}, Merge: []view.Matcher{mustMatcher("(program)")}}, true},
}

// roundTrip writes p's threads under opts with write, checks that the file
// reads back into the same threads with the same per-function self and
// total times, and returns the file. The read-back profile is analysed with
// no view (its stacks are the view's already), its samples taken as they
// are; with plain set, also as calls.NewTimeline repairs them.
func roundTrip(t *testing.T, p *profile.Profile, opts view.Options, write writer, sameSampledTime, plain bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, p, speedscope.Options{View: opts}); err != nil {
		t.Fatal(err)
	}
	q, err := speedscope.ParseBytes(buf.Bytes())
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	if len(q.Threads) != len(p.Threads) {
		t.Fatalf("read back %d threads, want %d", len(q.Threads), len(p.Threads))
	}
	orig := withoutScriptIDs(p)
	for i := range p.Threads {
		th := profile.ThreadID(i)
		pt, qt := &p.Threads[i], &q.Threads[i]
		if qt.Name != pt.Name || qt.PID != pt.PID || qt.TID != pt.TID {
			t.Errorf("thread %d: read back %q pid %d tid %d, want %q pid %d tid %d", i, qt.Name, qt.PID, qt.TID, pt.Name, pt.PID, pt.TID)
		}
		want, wantSum := funcTimes(t, orig, th, opts, false)
		for _, final := range []bool{true, false} {
			if !final && !plain {
				continue
			}
			got, gotSum := funcTimes(t, q, th, view.Options{}, final)
			what := fmt.Sprintf("thread %d (final %t)", i, final)
			compareTimes(t, what, want, got)
			if sameSampledTime && gotSum != wantSum {
				t.Errorf("%s: sampled time %d ns read back, want %d", what, gotSum, wantSum)
			}
		}
	}
	return buf.Bytes()
}

// TestRoundTripNode writes the Node fixtures in each form under each view,
// reads them back and compares jsprof's per-function self and total times
// (within 1 ns; they are equal) and the sampled time. The files Write
// chooses stay within 2× of the input's size (recursion.cpuprofile: 3×, see
// below), and every file written passes the schema of the pinned speedscope
// package and the importer's checks (tools/speedscope/validate.mjs).
func TestRoundTripNode(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in ../../testdata/node: %v", err)
	}
	dir := t.TempDir()
	var written []string
	for _, path := range paths {
		name := filepath.Base(path)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range views {
			for _, fm := range forms {
				t.Run(name+"/"+v.name+"/"+fm.name, func(t *testing.T) {
					p, err := format.ReadFile(path, nil, format.Options{})
					if err != nil {
						t.Fatal(err)
					}
					// An evented file turns gaps into time of the root.
					out := roundTrip(t, p, v.opts, fm.write, !v.gaps || fm.name == "sampled", v.name == "all")
					if fm.name == "smaller" && v.name == "all" {
						// recursion.cpuprofile's stacks hold 148,687 frames (an
						// ackermann recursion up to 165 deep in most samples): at
						// two bytes each in a sampled profile, and far more in an
						// evented one, no speedscope file is within 2× of it.
						limit := 2.0
						if name == "recursion.cpuprofile" {
							limit = 3
						}
						ratio := float64(len(out)) / float64(st.Size())
						t.Logf("%s: %d bytes written for %d read (%.2f×)", name, len(out), st.Size(), ratio)
						if ratio > limit {
							t.Errorf("%s: %d bytes written for %d read: %.2f×, want at most %g×", name, len(out), st.Size(), ratio, limit)
						}
					}
					if v.name == "all" || v.name == "js" {
						f := filepath.Join(dir, fmt.Sprintf("%s.%s.%s.speedscope.json", name, v.name, fm.name))
						if err := os.WriteFile(f, out, 0o644); err != nil {
							t.Fatal(err)
						}
						written = append(written, f)
					}
				})
			}
		}
	}
	validate(t, written)
}

// corpusFiles are the shared corpus inputs the round trip covers, with the
// number of threads each has.
var corpusFiles = []struct {
	path    string
	threads int
	large   bool    // skipped with -short
	plain   bool    // also agrees when read back with DevTools' repairs (see funcTimes)
	limit   float64 // bound on the size written ÷ the size read (decompressed)
}{
	{"devtools/two-workers.json.gz", 3, false, true, 2},
	{"devtools/basic.cpuprofile.gz", 1, false, true, 2},
	{"devtools/node-fibonacci-website.cpuprofile.gz", 1, false, true, 2},
	{"devtools/large-profile.cpuprofile.gz", 1, true, true, 2},
	// Stacks 52 frames deep on average, 820,133 frames in all for a 1 MB
	// input: a sampled profile takes about 3 bytes a frame, an evented one
	// far more (26 events a sample).
	{"speedscope/Chrome/65/sucrase.cpuprofile", 1, false, false, 2.6},
	{"speedscope/Chrome/69/simple.json", 1, false, true, 2},
	{"xs/xs_workload.cpuprofile", 1, false, true, 2},
}

// TestRoundTripCorpus is TestRoundTripNode on files of the shared corpus
// (skipped when it is absent): traces with several threads, whose stacks
// include trace events, and an XS call graph. Sizes are compared with the
// decompressed input.
func TestRoundTripCorpus(t *testing.T) {
	dir := t.TempDir()
	var written []string
	for _, cf := range corpusFiles {
		t.Run(cf.path, func(t *testing.T) {
			if cf.large && testing.Short() {
				t.Skip("large input; skipped with -short")
			}
			path := proftest.Corpus(t, cf.path)
			data, err := input.ReadFile(path, nil, input.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := format.Parse(data, format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Threads) != cf.threads {
				t.Fatalf("%d threads, want %d", len(p.Threads), cf.threads)
			}
			out := roundTrip(t, p, view.Options{}, speedscope.Write, true, cf.plain)
			ratio := float64(len(out)) / float64(len(data))
			t.Logf("%s: %d bytes written for %d read (%.2f×), %d threads", cf.path, len(out), len(data), ratio, len(p.Threads))
			if ratio > cf.limit {
				t.Errorf("%d bytes written for %d read: %.2f×, want at most %g×", len(out), len(data), ratio, cf.limit)
			}
			f := filepath.Join(dir, strings.ReplaceAll(cf.path, "/", "_")+".speedscope.json")
			if err := os.WriteFile(f, out, 0o644); err != nil {
				t.Fatal(err)
			}
			written = append(written, f)
		})
	}
	validate(t, written)
}

var (
	installOnce sync.Once
	installErr  error
)

// validate checks files with tools/speedscope/validate.mjs: the speedscope
// schema and the importer's own checks. It fails the test when node or the
// pinned packages cannot be had.
func validate(t *testing.T, files []string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	tools := filepath.Join(proftest.RepoRoot(), "tools", "speedscope")
	installOnce.Do(func() {
		out, err := exec.Command("bash", filepath.Join(tools, "install.sh")).CombinedOutput()
		if err != nil {
			installErr = fmt.Errorf("tools/speedscope/install.sh: %v\n%s", err, out)
		}
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to validate speedscope files against the schema: %v", err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(tools, "validate.mjs")}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("validate.mjs: %v\n%s%s", err, stderr.String(), stdout.String())
	}
	n := 0
	for line := range strings.Lines(stdout.String()) {
		if strings.HasPrefix(line, "ok ") {
			n++
		}
	}
	if n != len(files) {
		t.Fatalf("validate.mjs passed %d of %d files:\n%s", n, len(files), stdout.String())
	}
}

// cpuprofile returns a .cpuprofile with (program), (garbage collector) and
// main → f, main → g, 10 µs apart, sampling the given nodes: 2 is
// (program), 3 the GC, 5 f and 6 g.
func cpuprofile(samples string) string {
	frame := func(name, url string, line int) string {
		return fmt.Sprintf(`"callFrame":{"functionName":%q,"scriptId":"1","url":%q,"lineNumber":%d,"columnNumber":0}`, name, url, line)
	}
	n := strings.Count(samples, ",") + 1
	return `{"nodes":[{"id":1,` + frame("(root)", "", -1) + `,"children":[2,3,4]},{"id":2,` + frame("(program)", "", -1) + `},
{"id":3,` + frame("(garbage collector)", "", -1) + `},{"id":4,` + frame("main", "a.js", 0) + `,"children":[5,6]},
{"id":5,` + frame("f", "a.js", 1) + `},{"id":6,` + frame("g", "a.js", 2) + `}],
"startTime":0,"endTime":1000,"samples":[` + samples + `],"timeDeltas":[` + strings.Repeat("10,", n-1) + `10]}`
}

// TestRoundTripRepairs covers the stacks that DevTools' repairs treat
// differently once written (see funcTimes). A run of (program) samples
// between two samples of main is not repaired; Write keeps the run's
// samples apart, as merged they would be one (program) sample, which is.
// A GC sample before a (program) sample keeps it from being repaired; in
// the file, the GC sample is on main's stack and no longer does.
func TestRoundTripRepairs(t *testing.T) {
	for _, tc := range []struct {
		name, samples string
		plain         bool // read back with DevTools' repairs, the times agree
	}{
		{"program-run", "5,2,2,6,5,2,2,2,5", true},
		{"gc-then-program", "5,3,2,6", false},
	} {
		for _, fm := range forms {
			t.Run(tc.name+"/"+fm.name, func(t *testing.T) {
				p, err := format.Parse([]byte(cpuprofile(tc.samples)), format.Options{})
				if err != nil {
					t.Fatal(err)
				}
				roundTrip(t, p, view.Options{}, fm.write, true, tc.plain)
			})
		}
	}
}

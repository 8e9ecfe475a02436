package firefox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// fxResult is the output of tools/firefox/self-times.mjs.
type fxResult struct {
	CLI     string `json:"cli"`
	Profile struct {
		Name        string
		ThreadCount int
	}
	Threads []struct {
		Index      int
		Handle     string
		Name, TID  string
		PID        string `json:"pid"`
		WeightType string
		Functions  []struct {
			Index       int
			Name        string
			Self, Total float64
		}
		Categories []struct {
			Index int
			Name  string
			Value float64
		}
	}
}

var (
	installOnce sync.Once
	installErr  error
)

// installProfiler installs the pinned Firefox Profiler CLI (once per test
// binary). Missing node or npm is a failure, not a skip.
func installProfiler(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: the Firefox Profiler check needs Node 20+ and npm (%v)", tool, err)
		}
	}
	installOnce.Do(func() {
		cmd := exec.Command("bash", filepath.Join(proftest.RepoRoot(), "tools", "firefox", "install.sh"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			installErr = fmt.Errorf("tools/firefox/install.sh: %w\n%s", err, out.String())
		}
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
}

// runProfiler loads a file with the Firefox Profiler and returns what it
// computes per thread.
func runProfiler(t *testing.T, file string) *fxResult {
	t.Helper()
	// Interrupted (not killed) at the deadline, so that the script ends the
	// Profiler daemon it started.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(proftest.RepoRoot(), "tools", "firefox", "self-times.mjs"), file)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("self-times.mjs %s: %v\n%s", file, err, stderr.String())
	}
	var res fxResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("self-times.mjs output: %v\n%.500s", err, stdout.String())
	}
	return &res
}

// TestFirefoxProfilerAgrees is the proof: every input, written in several
// views from the session's stacks, is loaded by the Firefox Profiler's own
// loader and call tree (npm @firefox-devtools/profiler-cli, pinned in
// tools/firefox), and the self and total time it reports for every function
// of every thread equal those of the stacks written and of the session's
// tree (jsprof top and tree), and its time per category the stacks', to the
// ns (its float ms sums rounded to ns). The tree of an XS call graph is
// exact only to 50 µs (see TestStructure).
func TestFirefoxProfilerAgrees(t *testing.T) {
	installProfiler(t)
	for _, in := range inputs(t) {
		for _, v := range views {
			t.Run(in.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				s := load(t, in.path(t))
				proveAgreement(t, s, v.opts(t, s))
			})
		}
	}
}

// proveAgreement writes s under vo, loads the output with the Firefox
// Profiler and compares its function list and category breakdown, thread
// by thread, with the session's.
func proveAgreement(t *testing.T, s *session.Session, vo view.Options) {
	t.Helper()
	const tol = 1 // ns, after rounding the Profiler's float ms sums
	p := s.Profile
	data := write(t, s, vo)
	var pp processed
	if err := json.Unmarshal(data, &pp); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "profile.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := runProfiler(t, file)
	if res.Profile.Name != "jsprof" {
		t.Errorf("the Profiler names the profile %q, want jsprof (meta.product): not read as a processed profile?", res.Profile.Name)
	}
	if len(res.Threads) != len(p.Threads) {
		t.Fatalf("the Profiler has %d threads, want %d", len(res.Threads), len(p.Threads))
	}
	toNS := func(ms float64) profile.Time { return profile.Time(math.Round(ms * 1e6)) }
	stacks := threadStacks(t, s, vo)
	cats := stackCategories(t, p, stacks)
	treeTol := profile.Time(tol)
	if p.Format == "xs" {
		treeTol = 50_000
	}
	var worst, worstTree, sum profile.Time
	nfuncs := 0
	for ti, tree := range trees(t, s, vo) {
		th := res.Threads[ti]
		want := &p.Threads[ti]
		if th.Index != ti || th.TID != fmt.Sprint(want.TID) || th.PID != fmt.Sprint(want.PID) {
			t.Fatalf("Profiler thread %d is %+v, want pid %d tid %d", ti, th, want.PID, want.TID)
		}
		if want.Name != "" && th.Name != want.Name {
			t.Errorf("thread %d: the Profiler names it %q, want %q", ti, th.Name, want.Name)
		}
		if th.WeightType != "tracing-ms" {
			t.Errorf("thread %d: weight type %q, want tracing-ms", ti, th.WeightType)
		}
		self, total := map[string]float64{}, map[string]float64{}
		for _, f := range th.Functions {
			if f.Index < 0 || f.Index >= pp.Shared.FuncTable.Length {
				t.Fatalf("thread %d: function index %d out of range", ti, f.Index)
			}
			label := pp.funcLabel(f.Index)
			self[label] += f.Self
			total[label] += f.Total
		}
		got := map[string]times{}
		for label := range self {
			got[label] = times{toNS(self[label]), toNS(total[label])}
		}
		fromStacks, _, _ := stackTimes(p, stacks[ti])
		worst = max(worst, compareFuncs(t, fmt.Sprintf("thread %d (stacks)", ti), fromStacks, got, tol))
		worstTree = max(worstTree, compareFuncs(t, fmt.Sprintf("thread %d (tree)", ti), treeTimes(tree), got, treeTol))
		nfuncs += len(tree.Funcs)
		for _, f := range tree.Funcs {
			sum += f.Self
		}
		// Categories: the Profiler's breakdown against the stacks'.
		gotCats := map[int]float64{}
		for _, c := range th.Categories {
			gotCats[c.Index] += c.Value
		}
		for c, w := range cats[ti] {
			d := toNS(gotCats[c]) - w
			if d > tol || d < -tol {
				t.Errorf("thread %d: category %s %d ns, the stacks %d", ti, p.Categories[c].Name, toNS(gotCats[c]), w)
			}
			worst = max(worst, d, -d)
		}
	}
	t.Logf("%s: %d bytes; %d threads, %d functions, %.3f ms of self time: largest difference %d ns from the stacks, %d ns from the tree",
		t.Name(), len(data), len(p.Threads), nfuncs, sum.Millis(), worst, worstTree)
}

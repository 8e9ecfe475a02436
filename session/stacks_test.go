package session

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// viewCases are the views, ranges and transforms every consistency test
// runs: none, each view, a range, and transforms (the focus and drop name
// a function of the thread, chosen by the test).
func viewCases(tree *calltree.Tree) map[string]view.Options {
	p := tree.Profile
	cases := map[string]view.Options{
		"none":     {},
		"all":      {View: view.All},
		"js":       {View: view.JS},
		"platform": {View: view.Platform},
		"collapse": {CollapseRecursion: true},
		"nothing":  {Drop: []view.Matcher{{Name: "no function has this name"}}},
	}
	if len(tree.Funcs) == 0 {
		return cases
	}
	// The hottest function by total, and the hottest by self.
	byTotal := tree.Top(calltree.ByTotal, 1)[0]
	bySelf := tree.Top(calltree.BySelf, 1)[0]
	cases["focus"] = view.Options{Focus: []view.Matcher{{Name: p.Str(tree.Funcs[byTotal].Key.Name)}}}
	cases["drop"] = view.Options{Drop: []view.Matcher{{Name: p.Str(tree.Funcs[bySelf].Key.Name)}}}
	cases["merge"] = view.Options{Merge: []view.Matcher{{Name: p.Str(tree.Funcs[bySelf].Key.Name)}}, View: view.JS}
	w := tree.TopDown[0].Total
	cases["range"] = view.Options{From: w / 4, To: w / 2}
	return cases
}

// aggregate sums stacks into per-function self and total (once per stack),
// by function key, and returns them with the total weight of the stacks
// with frames.
func aggregate(t *testing.T, p *profile.Profile, ts profile.ThreadStacks) (map[profile.FunctionKey][2]profile.Time, profile.Time) {
	t.Helper()
	out := map[profile.FunctionKey][2]profile.Time{}
	var sum, last profile.Time
	first := true
	if ts.Paths == nil {
		t.Fatal("the session's stacks come without their path tree")
	}
	if err := ts.Paths.Check(p); err != nil {
		t.Fatal(err)
	}
	var byPath []profile.FrameID
	for st := range ts.Stacks {
		// The path tree gives each stack's frames.
		if byPath = ts.Paths.AppendFrames(byPath[:0], st.Path); !slices.Equal(byPath, st.Frames) {
			t.Fatalf("stack at %d: path %d has frames %v, the stack %v", st.Time, st.Path, byPath, st.Frames)
		}
		if !first && st.Time < last {
			t.Fatalf("stack at %d after one ending at %d: want time order", st.Time, last)
		}
		first, last = false, st.Time+st.Weight
		if st.Weight <= 0 {
			t.Fatalf("stack at %d with weight %d", st.Time, st.Weight)
		}
		if len(st.Frames) == 0 {
			continue
		}
		sum += st.Weight
		seen := map[profile.FunctionKey]bool{}
		for i, f := range st.Frames {
			k := p.FunctionKey(f)
			v := out[k]
			if i == len(st.Frames)-1 {
				v[0] += st.Weight
			}
			if !seen[k] {
				seen[k] = true
				v[1] += st.Weight
			}
			out[k] = v
		}
	}
	return out, sum
}

// TestStacksMatchTrees requires, on every thread of every corpus file and
// under every view case, the stacks handed to writers to add up to exactly
// the tree's numbers: the thread's time, and each function's self and
// total.
func TestStacksMatchTrees(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus-wide: not in -short mode")
	}
	ctx := context.Background()
	for _, file := range oracleFiles(t) {
		rel := filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			s, err := Load(ctx, file, Options{})
			if err != nil {
				t.Skipf("jsprof cannot read it: %v", err)
			}
			for _, th := range s.Threads() {
				base, err := th.Tree(ctx, view.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for name, opts := range viewCases(base) {
					where := fmt.Sprintf("thread %d:%d %s", th.Info().PID, th.Info().TID, name)
					tree, err := th.Tree(ctx, opts)
					if err != nil {
						t.Fatal(err)
					}
					ts, err := th.Stacks(ctx, opts)
					if err != nil {
						t.Fatal(err)
					}
					got, sum := aggregate(t, s.Profile, ts)
					want := tree.TopDown[0].Total - tree.TopDown[0].Self
					// XS call graphs are exact only to the float rounding
					// DevTools' calls carry on epoch-µs clocks (~0.25 µs at
					// each call boundary, which the stacks are cut at).
					var tol profile.Time
					if s.Profile.Format == "xs" {
						tol = 50_000
					}
					near := func(a, b profile.Time) bool { return a-b <= tol && b-a <= tol }
					if !near(sum, want) {
						t.Errorf("%s: stacks add up to %d ns, want the tree's %d ns", where, sum, want)
					}
					bad := 0
					for i := range tree.Funcs {
						f := &tree.Funcs[i]
						g := got[f.Key]
						if !(near(g[0], f.Self) && near(g[1], f.Total)) && bad < 5 {
							bad++
							t.Errorf("%s: %s: stacks give self %d total %d, the tree %d %d", where, s.Profile.Str(f.Key.Name), g[0], g[1], f.Self, f.Total)
						}
					}
					if name == "nothing" || name == "all" {
						if tree.TopDown[0].Total != base.TopDown[0].Total || len(tree.Funcs) != len(base.Funcs) {
							t.Errorf("%s: a transform that changes nothing changed the tree: %d functions, %d ns; want %d, %d",
								where, len(tree.Funcs), tree.TopDown[0].Total, len(base.Funcs), base.TopDown[0].Total)
						}
					}
				}
			}
		})
	}
}

// TestStacksCache requires the stacks to be the same whether their frames
// come from the cache of paths met, from the walk alone, from both (a
// cache that fills up part way) or from the paths (PathStacks), on
// testdata's profiles and a trace.
func TestStacksCache(t *testing.T) {
	defer func(n int) { stackCacheFrames = n }(stackCacheFrames)
	ctx := context.Background()
	type stack struct {
		frames       string
		time, weight profile.Time
		cat          profile.CategoryID
		sub          uint8
		path         int32
	}
	collect := func(th *Thread, opts view.Options) []stack {
		ts, err := th.Stacks(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []stack
		for st := range ts.Stacks {
			out = append(out, stack{fmt.Sprint(st.Frames), st.Time, st.Weight, st.Category, st.Subcategory, st.Path})
		}
		return out
	}
	files, _ := filepath.Glob(filepath.Join(proftest.RepoRoot(), "testdata", "node", "*.cpuprofile"))
	files = append(files, filepath.Join(proftest.RepoRoot(), "format", "chrometrace", "testdata", "inputs", "web-array.json"))
	checked := 0
	for _, file := range files {
		s, err := Load(ctx, file, Options{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, th := range s.Threads() {
			for _, opts := range []view.Options{{}, {View: view.JS}} {
				stackCacheFrames = 0
				want := collect(th, opts)
				// PathStacks: the same stacks, their frames told by the paths.
				pts, err := th.PathStacks(ctx, opts)
				if err != nil {
					t.Fatal(err)
				}
				var got []stack
				for st := range pts.Stacks {
					if st.Frames != nil {
						t.Fatalf("%s: PathStacks gave a stack its frames", file)
					}
					got = append(got, stack{fmt.Sprint(pts.Paths.AppendFrames(nil, st.Path)), st.Time, st.Weight, st.Category, st.Subcategory, st.Path})
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s thread %d:%d: PathStacks differ from Stacks", file, th.Info().PID, th.Info().TID)
				}
				for _, n := range []int{8 << 20, 40} {
					stackCacheFrames = n
					if got := collect(th, opts); !slices.Equal(got, want) {
						t.Errorf("%s thread %d:%d, cache of %d frames: the stacks differ from the walk's", file, th.Info().PID, th.Info().TID, n)
					}
				}
				checked += len(want)
			}
		}
	}
	if checked < 1000 {
		t.Errorf("%d stacks checked: too few to tell", checked)
	}
}

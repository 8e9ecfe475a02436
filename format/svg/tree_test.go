package svg

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// The tree the graph is drawn from is the session's, to the nanosecond:
// every top-down node with time has the same total and self, every
// function (trace events included) the same self and total, and the root
// is the tree's time less the time out of the view. The widths and
// tooltips are computed from these nodes (svg_test.go checks them against
// the session's tree too, at the precision the SVG holds).
func TestTreeIsSessionTree(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata profiles: %v", err)
	}
	trace := filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", "devtools", "simple-js-program.json.gz")
	if _, err := os.Stat(trace); err == nil {
		files = append(files, trace)
	} else {
		t.Logf("%s is absent (the shared corpus is not next to this checkout): no trace case", trace)
	}
	views := []view.Options{{}, {View: view.JS}, {View: view.JS, CollapseRecursion: true}}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			p, err := format.ReadFile(file, nil, format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := session.New(file, p, session.Options{})
			for _, vo := range views {
				th := s.Threads()[0]
				ts, err := th.Stacks(t.Context(), vo)
				if err != nil {
					t.Fatal(err)
				}
				want, err := th.Tree(t.Context(), vo)
				if err != nil {
					t.Fatal(err)
				}
				got, err := build(s.Profile, ts)
				if err != nil {
					t.Fatal(err)
				}
				nodes, events := compareTrees(t, s.Profile, got, want)
				name := vo.View.String()
				if vo.CollapseRecursion {
					name += ", recursion collapsed"
				}
				t.Logf("view %s: %d nodes and %d functions (%d trace events) equal to the session's", name, nodes, len(want.Funcs), events)
			}
		})
	}
}

// compareTrees checks got against want node by node and function by
// function, and returns how many nodes and trace events it compared.
func compareTrees(t *testing.T, p *profile.Profile, got *tree, want *calltree.Tree) (nodes, events int) {
	t.Helper()
	td := want.TopDown
	if g, w := got.nodes[0].total, td[0].Total-td[0].Self; g != w {
		t.Errorf("root: %d ns, want %d (the tree's %d less %d out of the view)", g, w, td[0].Total, td[0].Self)
	}
	key := func(fn int32) profile.FunctionKey { return p.FunctionKey(got.funcs[fn]) }
	// Walk both trees: want's node n is got's node at[n].
	at := map[int32]int32{0: 0}
	stack := []int32{0}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for c := td[n].FirstChild; c >= 0; c = td[c].NextSibling {
			if td[c].Total == 0 {
				continue
			}
			k := want.Funcs[td[c].Func].Key
			g := int32(-1)
			for _, x := range got.nodes[at[n]].kids {
				if key(got.nodes[x].fn) == k {
					g = x
				}
			}
			if g < 0 {
				t.Errorf("node %d (%q): missing", c, p.Str(k.Name))
				continue
			}
			if gn := &got.nodes[g]; gn.total != td[c].Total || gn.self != td[c].Self {
				t.Errorf("node %d (%q): total/self %d/%d, want %d/%d", c, p.Str(k.Name), gn.total, gn.self, td[c].Total, td[c].Self)
			}
			at[c] = g
			nodes++
			stack = append(stack, c)
		}
	}
	if nodes != len(got.nodes)-1 {
		t.Errorf("%d nodes drawn from the stacks, want %d (the session's with time)", len(got.nodes)-1, nodes)
	}
	// Functions: self is the sum over their nodes, total over their
	// outermost nodes.
	self, total := map[profile.FunctionKey]profile.Time{}, map[profile.FunctionKey]profile.Time{}
	type walk struct {
		n     int32
		outer bool // no ancestor of the same function
	}
	open := map[int32]int{} // function → open nodes on the path
	var dfs []walk
	var path []int32
	dfs = append(dfs, walk{0, true})
	for len(dfs) > 0 {
		w := dfs[len(dfs)-1]
		dfs = dfs[:len(dfs)-1]
		if w.n < 0 { // leaving a node
			fn := got.nodes[path[len(path)-1]].fn
			path = path[:len(path)-1]
			open[fn]--
			continue
		}
		nd := &got.nodes[w.n]
		if w.n != 0 {
			k := key(nd.fn)
			self[k] += nd.self
			if open[nd.fn] == 0 {
				total[k] += nd.total
			}
		}
		open[nd.fn]++
		path = append(path, w.n)
		dfs = append(dfs, walk{n: -1})
		for _, c := range nd.kids {
			dfs = append(dfs, walk{n: c})
		}
	}
	for _, f := range want.Funcs {
		if f.Total == 0 {
			continue
		}
		if f.Key.Event {
			events++
		}
		if self[f.Key] != f.Self || total[f.Key] != f.Total {
			t.Errorf("function %q (event %v): self/total %d/%d, want %d/%d", p.Str(f.Key.Name), f.Key.Event, self[f.Key], total[f.Key], f.Self, f.Total)
		}
	}
	return nodes, events
}

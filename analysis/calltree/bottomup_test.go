package calltree

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// bottomUpRows renders a bottom-up tree in preorder, children as
// Children orders them, one row per node: depth, function and numbers.
func bottomUpRows(nodes []Node) []string {
	var rows []string
	type item struct {
		n     int32
		depth int
	}
	var stack []item
	push := func(n int32, depth int) {
		kids := Children(nodes, n, BySelf)
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, item{kids[k], depth})
		}
	}
	push(0, 1)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &nodes[it.n]
		rows = append(rows, fmt.Sprintf("%d %d %d %d %d", it.depth, nd.Func, nd.Self, nd.Total, nd.Calls))
		push(it.n, it.depth+1)
	}
	return rows
}

func walkRows(t *Tree, maxDepth int) []string {
	var rows []string
	t.WalkBottomUp(nil, func(nd *Node, depth int) bool {
		if maxDepth > 0 && depth > maxDepth {
			return false
		}
		rows = append(rows, fmt.Sprintf("%d %d %d %d %d", depth, nd.Func, nd.Self, nd.Total, nd.Calls))
		return true
	})
	return rows
}

// TestWalkBottomUp requires the walk to give BottomUp's tree, node for
// node and in the same order, on every thread of testdata and the corpus,
// the generated shapes and the deep shapes, whole and to a depth of 3.
func TestWalkBottomUp(t *testing.T) {
	root := proftest.RepoRoot()
	var paths []string
	for _, dir := range []string{filepath.Join(root, "testdata"), filepath.Join(root, "..", "shared", "corpus")} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.Contains(p, ".cpuprofile") || strings.HasSuffix(p, ".json.gz") || strings.HasSuffix(p, ".json")) {
				paths = append(paths, p)
			}
			return nil
		})
	}
	var profiles []*profile.Profile
	for _, path := range paths {
		if p, err := format.ReadFile(path, nil, format.Options{}); err == nil {
			profiles = append(profiles, p)
		}
	}
	for _, sh := range proftest.Shapes {
		var buf bytes.Buffer
		if err := proftest.WriteShapedCPUProfile(&buf, sh, 0.01, 5); err != nil {
			t.Fatal(err)
		}
		profiles = append(profiles, parse(t, buf.Bytes()))
	}
	for _, shape := range proftest.DeepShapes {
		data, err := proftest.DeepCPUProfile(shape, 200)
		if err != nil {
			t.Fatal(err)
		}
		profiles = append(profiles, parse(t, data))
	}
	trees, rows := 0, 0
	for _, p := range profiles {
		for th := range p.Threads {
			tl, err := calls.NewTimeline(p, profile.ThreadID(th))
			if err != nil || tl.Len() == 0 {
				continue
			}
			tr := Build(tl)
			for _, depth := range []int{0, 3} {
				want, got := bottomUpRows(tr.BottomUp(depth)), walkRows(tr, depth)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s thread %d depth %d: the walk's %d rows differ from BottomUp's %d", p.Format, th, depth, len(got), len(want))
				}
				rows += len(want)
			}
			root, want := tr.BottomUpRoot(), tr.BottomUp(1)[0]
			if want.FirstChild = -1; root != want {
				t.Errorf("%s thread %d: BottomUpRoot %+v, BottomUp's root %+v", p.Format, th, root, tr.BottomUp(1)[0])
			}
			trees++
		}
	}
	if trees < 20 || rows < 10_000 {
		t.Errorf("%d trees, %d rows compared: too few to tell", trees, rows)
	}
	t.Logf("%d trees, %d rows", trees, rows)
}

// TestWalkBottomUpMemory requires the walk to hold what the level it is at
// needs, not the whole tree: on a chain of 3,000 distinct functions the
// tree has 4.5 M nodes (BottomUp: ~400 MB), which the walk visits holding
// a few MB.
func TestWalkBottomUpMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a tree of 4.5 M nodes")
	}
	data, err := proftest.DeepCPUProfile("chain", 3000)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := calls.NewTimeline(parse(t, data), 0)
	if err != nil {
		t.Fatal(err)
	}
	tr := Build(tl)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	visited := 0
	tr.WalkBottomUp(nil, func(*Node, int) bool {
		if visited++; visited%250_000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return true
	})
	if visited != 3000*3001/2 {
		t.Fatalf("the walk visited %d nodes, want the chain's %d", visited, 3000*3001/2)
	}
	// BottomUp holds 4.5 M nodes of 48 bytes and a map entry each.
	if grew := peak - base; grew > 32<<20 {
		t.Errorf("the heap grew by %d MB during the walk, want under 32 MB", grew>>20)
	}
}

func parse(t *testing.T, data []byte) *profile.Profile {
	t.Helper()
	p, err := format.Parse(data, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

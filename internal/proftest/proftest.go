// Package proftest builds profiles for tests and benchmarks: synthetic
// .cpuprofile documents from a seeded RNG, and access to the shared corpus.
package proftest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// LargeCPUProfile returns a .cpuprofile document (compact JSON, as Node
// writes it) with about the given numbers of nodes and samples: a random tree
// of JS functions from a few dozen scripts under (root), plus (program),
// (idle) and (garbage collector), with positionTicks on hit nodes, ids in
// creation order and a few negative time deltas. It is deterministic for a
// seed.
func LargeCPUProfile(seed uint64, nodes, samples int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	type node struct {
		parent   int
		fn       int
		children []int
		hits     int
	}
	ns := make([]node, 0, nodes)
	ns = append(ns, node{parent: -1, fn: -1}) // (root)
	for range 3 {
		ns[0].children = append(ns[0].children, len(ns))
		ns = append(ns, node{parent: 0, fn: -2 - len(ns) + 1}) // meta nodes: -2 program, -3 idle, -4 gc
	}
	nfuncs := max(nodes/8, 16)
	for len(ns) < nodes {
		// Attach to a random recent node, which gives deep and bushy parts.
		par := 0
		if len(ns) > 4 && r.IntN(10) != 0 {
			par = 4 + r.IntN(len(ns)-4)
			if r.IntN(4) != 0 {
				par = max(4, len(ns)-1-r.IntN(min(len(ns)-4, 50)))
			}
		}
		ns[par].children = append(ns[par].children, len(ns))
		ns = append(ns, node{parent: par, fn: r.IntN(nfuncs)})
	}
	smp := make([]int, samples)
	for i := range smp {
		switch k := r.IntN(100); {
		case k < 5:
			smp[i] = 1
		case k < 15:
			smp[i] = 2
		case k < 20:
			smp[i] = 3
		default:
			smp[i] = 4 + r.IntN(len(ns)-4)
		}
		ns[smp[i]].hits++
	}
	b := make([]byte, 0, nodes*200+samples*12)
	b = append(b, `{"nodes":[`...)
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"id":%d,"callFrame":`, i+1)
		if n.fn < 0 {
			b = appendMetaFrame(b, int32(n.fn))
		} else {
			script := n.fn % 40
			b = fmt.Appendf(b, `{"functionName":"fn%d_%s","scriptId":"%d","url":"https://example.com/static/js/chunk-%d.%08x.js","lineNumber":%d,"columnNumber":%d}`,
				n.fn, "handleEvent", script+10, script, script*2654435761, n.fn*7%5000, n.fn*13%200)
		}
		b = fmt.Appendf(b, `,"hitCount":%d`, n.hits)
		if len(n.children) > 0 {
			b = append(b, `,"children":[`...)
			for j, c := range n.children {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(c+1), 10)
			}
			b = append(b, ']')
		}
		if n.hits > 0 && n.fn >= 0 {
			b = fmt.Appendf(b, `,"positionTicks":[{"line":%d,"ticks":%d}]`, n.fn*7%5000+2, n.hits)
		}
		b = append(b, '}')
	}
	b = append(b, `],"startTime":123456789,"endTime":`...)
	b = strconv.AppendInt(b, int64(123456789+samples*200+150), 10)
	b = append(b, `,"samples":[`...)
	for i, s := range smp {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s+1), 10)
	}
	b = append(b, `],"timeDeltas":[`...)
	for i := range smp {
		if i > 0 {
			b = append(b, ',')
		}
		d := 150 + r.IntN(100)
		if r.IntN(5000) == 0 {
			d = -40
		}
		b = strconv.AppendInt(b, int64(d), 10)
	}
	return append(b, "]}"...)
}

// appendMetaFrame appends the callFrame of a meta node: fn −1 (root), −2
// (program), −3 (idle) or −4 (garbage collector).
func appendMetaFrame(b []byte, fn int32) []byte {
	name := [...]string{"(root)", "(program)", "(idle)", "(garbage collector)"}[-1-fn]
	b = append(b, `{"functionName":"`...)
	b = append(b, name...)
	return append(b, `","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}`...)
}

// RepoRoot returns the repository root.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Corpus returns the path of a file in ../shared/corpus, skipping the test
// with a message when the shared corpus is absent.
func Corpus(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(RepoRoot(), "..", "shared", "corpus", rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("../shared/corpus/%s is absent (the shared corpus is not next to this checkout): %v", rel, err)
	}
	return p
}

// Files returns the files whose base name contains part under testdata,
// under each of dirs (relative to the repository root), and under
// ../shared/corpus when the shared corpus is next to this checkout (the
// test logs that it is not).
func Files(tb testing.TB, part string, dirs ...string) []string {
	tb.Helper()
	root := RepoRoot()
	all := []string{filepath.Join(root, "testdata")}
	for _, d := range dirs {
		all = append(all, filepath.Join(root, d))
	}
	corpus := filepath.Join(root, "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err == nil {
		all = append(all, corpus)
	} else {
		tb.Logf("../shared/corpus is absent: the repository's files only")
	}
	var paths []string
	for _, dir := range all {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(filepath.Base(p), part) {
				paths = append(paths, p)
			}
			return nil
		})
	}
	return paths
}

// BenchCount runs f in b's loop, reporting allocations and the count the
// last call returned as a metric per op (unit, "calls/op" say).
func BenchCount(b *testing.B, unit string, f func() int) {
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = f()
	}
	b.ReportMetric(float64(n), unit)
}

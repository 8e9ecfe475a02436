// Package totals computes per-function self and total time under the rules
// of the viewers that disagree about them ("total-time semantics"), as the
// docs/formats.md §4 describes them:
//
//   - DevTools: a function's total counts only its outermost call on each
//     stack. Package calltree computes it from DevTools' own call
//     reconstruction; this package only names it.
//   - VSCode (docs/formats.md §4, VS Code's profilingModel.ts): a node's total is
//     its self time plus its children's totals, with the children taken as a
//     tree, and a function's total is the sum over all of its nodes. Recursion
//     and call-graph nodes with several callers are therefore counted several
//     times, and a total can exceed the profile's duration. That is what
//     VS Code shows, and why it is offered: to explain its numbers.
//   - XSBug (docs/formats.md §3.3, xsbug's ProfilePane.js and ProfilePane.c): on
//     a call graph, each hit record's self time is propagated to its callers,
//     split equally among them (the file does not say how often each caller
//     was on the stack), shares under 1 µs dropped, on-path cycles cut. No
//     total exceeds the profile's duration. On a tree a node's total is its
//     inclusive time, and a function counts its outermost nodes only.
//
// RemoveCycles reproduces XS's fxRemoveProfilerCycle (docs/formats.md §3.2), which
// turns a call graph into the DAG that XS writes.
//
// Self time is the same under VSCode and XSBug: each sample lasts until the
// next sample (samples as stored, sorted by time), and the last one until the
// thread's End (0 if End is before it); the time before the first sample is
// not counted. Times are int64 nanoseconds; XSBug propagates in float64 µs,
// as xsbug does, and rounds to the nanosecond at the end.
package totals

import (
	"errors"
	"fmt"
	"math"

	"github.com/jsprof/jsprof/profile"
)

// Semantics selects how self and total time are computed.
type Semantics int

// The semantics.
const (
	DevTools Semantics = iota // Chrome DevTools: outermost call per stack (package calltree)
	VSCode                    // VS Code: sum over the tree expansion of every node
	XSBug                     // xsbug: self time propagated to callers, split equally
)

var names = [...]string{"devtools", "vscode", "xsbug"}

// String returns the name ParseSemantics accepts for s.
func (s Semantics) String() string {
	if s >= 0 && int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("Semantics(%d)", int(s))
}

// ParseSemantics returns the semantics named "devtools", "vscode" or "xsbug".
func ParseSemantics(name string) (Semantics, error) {
	for i, n := range names {
		if name == n {
			return Semantics(i), nil
		}
	}
	return 0, fmt.Errorf("unknown semantics %q; want devtools, vscode or xsbug", name)
}

// Default returns the semantics that suits thread t, and why: XSBug for a
// call graph, DevTools for a tree.
func Default(p *profile.Profile, t profile.ThreadID) (s Semantics, reason string) {
	if p.Threads[t].Shape == profile.ShapeCallGraph {
		return XSBug, "XS call graph: one node per function, several callers; xsbug's propagation is the only total that does not double count"
	}
	return DevTools, "call tree: each node is one call path, so DevTools' total (outermost call per stack) is exact"
}

// Errors that callers may branch on.
var (
	// ErrDevTools is returned by Functions for DevTools semantics, whose
	// totals come from calltree.Build.
	ErrDevTools = errors.New("DevTools totals come from package calltree")
	// ErrCycle reports a call graph with a cycle, on which VS Code's
	// recursive sum does not terminate (RemoveCycles removes cycles).
	ErrCycle = errors.New("call graph has a cycle")
	// ErrTooLarge reports a computation that exceeds its bound: a VS Code
	// total beyond int64 nanoseconds, or an xsbug propagation beyond
	// MaxPropagationSteps.
	ErrTooLarge = errors.New("too large")
)

// Function is one row of the per-function table.
type Function struct {
	Key   profile.FunctionKey
	Frame profile.FrameID // the frame of the function's first node in the thread
	Self  profile.Time    // ns
	Total profile.Time    // ns, under the semantics asked for
}

// Functions returns the self and total time of every function of thread t
// under s (VSCode or XSBug; DevTools returns ErrDevTools), one row per
// profile.FunctionKey in the order of the function's first node in the
// thread. The caller owns the slice.
func Functions(p *profile.Profile, t profile.ThreadID, s Semantics) ([]Function, error) {
	self := nodeSelf(p, t)
	var total []profile.Time
	var err error
	switch s {
	case VSCode:
		total, err = vscodeTotals(p, t, self)
	case XSBug:
		total, err = xsbugTotals(p, t, self)
	case DevTools:
		return nil, fmt.Errorf("totals: %w", ErrDevTools)
	default:
		return nil, fmt.Errorf("totals: unknown semantics %d", int(s))
	}
	if err != nil {
		return nil, fmt.Errorf("%s totals: %w", s, err)
	}
	return merge(p, t, self, total)
}

// merge sums per-node self and total times into per-function rows. A node
// whose total must not be added to its function's (see xsbugTotals) has a
// zero total.
func merge(p *profile.Profile, t profile.ThreadID, self, total []profile.Time) ([]Function, error) {
	th := &p.Threads[t]
	var rows []Function
	idx := map[profile.FunctionKey]int{}
	for i := range self {
		f := p.Nodes[th.Nodes.Start+int32(i)].Frame
		key := p.FunctionKey(f)
		j, ok := idx[key]
		if !ok {
			j = len(rows)
			idx[key] = j
			rows = append(rows, Function{Key: key, Frame: f})
		}
		rows[j].Self += self[i]
		if rows[j].Total > math.MaxInt64-total[i] {
			return nil, fmt.Errorf("%w: the total of %q exceeds 2^63 ns", ErrTooLarge, p.Str(key.Name))
		}
		rows[j].Total += total[i]
	}
	return rows, nil
}

// nodeSelf returns the self time of each node of thread t, indexed by
// NodeID − Thread.Nodes.Start: sample i lasts t[i+1]−t[i], and the last
// sample End−t[last], or 0 if End is before it (VS Code's and xsbug's rule;
// timeDeltas[0], the time before the first sample, is not counted).
func nodeSelf(p *profile.Profile, t profile.ThreadID) []profile.Time {
	th := &p.Threads[t]
	self := make([]profile.Time, th.Nodes.Len())
	ss := p.ThreadSamples(t)
	ts := ss.Time.Cursor()
	for i, n := range ss.Node.All() {
		var d profile.Time
		if i+1 < ss.Time.Len() {
			d = ts.At(i+1) - ts.At(i)
		} else {
			d = max(th.End-ts.At(i), 0)
		}
		self[n-profile.NodeID(th.Nodes.Start)] += d
	}
	return self
}

// hits returns the number of samples of each node of thread t (xsbug counts
// hits from the samples; it ignores the file's hitCount).
func hits(p *profile.Profile, t profile.ThreadID) []int32 {
	th := &p.Threads[t]
	h := make([]int32, th.Nodes.Len())
	for _, n := range p.ThreadSamples(t).Node.All() {
		h[n-profile.NodeID(th.Nodes.Start)]++
	}
	return h
}

// edges returns the caller→callee edges of thread t as thread-local node
// indexes, in input order: Profile.Edges for a call graph, the Parent links
// for a tree.
func edges(p *profile.Profile, t profile.ThreadID) [][2]int32 {
	th := &p.Threads[t]
	start := profile.NodeID(th.Nodes.Start)
	end := profile.NodeID(th.Nodes.End)
	var out [][2]int32
	if th.Shape == profile.ShapeCallGraph {
		for _, e := range p.Edges {
			if e.From >= start && e.From < end {
				out = append(out, [2]int32{int32(e.From - start), int32(e.To - start)})
			}
		}
		return out
	}
	out = make([][2]int32, 0, th.Nodes.Len()-1)
	for i := start + 1; i < end; i++ {
		out = append(out, [2]int32{int32(p.Nodes[i].Parent - start), int32(i - start)})
	}
	return out
}

// csr is an adjacency list in compressed form: the neighbours of node n are
// adj[start[n]:start[n+1]], in the order they were added.
type csr struct {
	start []int32
	adj   []int32
}

// newCSR groups pairs (key, value) by key, keeping their order.
func newCSR(n int, pairs [][2]int32, keyIdx int) csr {
	g := csr{start: make([]int32, n+1), adj: make([]int32, len(pairs))}
	for _, e := range pairs {
		g.start[e[keyIdx]+1]++
	}
	for i := 0; i < n; i++ {
		g.start[i+1] += g.start[i]
	}
	fill := make([]int32, n)
	copy(fill, g.start[:n])
	for _, e := range pairs {
		k := e[keyIdx]
		g.adj[fill[k]] = e[1-keyIdx]
		fill[k]++
	}
	return g
}

func (g csr) of(n int32) []int32 { return g.adj[g.start[n]:g.start[n+1]] }

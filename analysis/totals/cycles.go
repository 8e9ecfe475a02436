package totals

import (
	"cmp"
	"slices"

	"github.com/jsprof/jsprof/profile"
)

// RemoveCycles returns the caller→callee edges of thread t that XS keeps when
// it removes cycles before writing a profile (fxRemoveProfilerCycle,
// docs/formats.md §3.2), in input order, and the number of edges it removes. The
// edges are Profile.Edges for a call graph and the Parent links for a tree.
// The caller owns the slice.
//
// XS searches depth first from the root, visiting each record's callees in
// ascending id order (it keeps them as a sorted set; here: ascending
// InputID), with two flags per record, "on the current path" and "visited":
//
//  1. Entering a record sets both flags.
//  2. For each callee other than the root: if it is on the path, the edge is
//     a back edge and is removed; if it was visited before, the edge stays
//     (a cross or forward edge); otherwise the search enters the callee.
//  3. Leaving a record clears its on-path flag.
//
// The result is a DAG rooted at the root; a node can still have several
// callers. Which edge of a cycle is removed depends on the order of the ids,
// so the result is not canonical. Edges of nodes the root does not reach,
// and edges into the root (which XS never records), are kept.
func RemoveCycles(p *profile.Profile, t profile.ThreadID) (dag []profile.Edge, removed int) {
	th := &p.Threads[t]
	base := profile.NodeID(th.Nodes.Start)
	n := th.Nodes.Len()
	es := edges(p, t)

	// Each node's outgoing edges (as indexes into es), callees by ascending id.
	pairs := make([][2]int32, len(es))
	for i, e := range es {
		pairs[i] = [2]int32{e[0], int32(i)}
	}
	out := newCSR(n, pairs, 0)
	for x := range n {
		slices.SortStableFunc(out.of(int32(x)), func(a, b int32) int {
			return cmp.Compare(p.Nodes[base+profile.NodeID(es[a][1])].InputID, p.Nodes[base+profile.NodeID(es[b][1])].InputID)
		})
	}

	const onPath, visited = 1, 2
	flags := make([]uint8, n)
	backEdge := make([]bool, len(es))
	type frame struct{ node, next int32 }
	flags[0] = onPath | visited
	stack := []frame{{0, out.start[0]}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == out.start[f.node+1] {
			flags[f.node] &^= onPath
			stack = stack[:len(stack)-1]
			continue
		}
		ei := out.adj[f.next]
		f.next++
		switch c := es[ei][1]; {
		case c == 0: // the root: XS skips callee 0
		case flags[c]&onPath != 0:
			backEdge[ei] = true
			removed++
		case flags[c]&visited != 0:
		default:
			flags[c] = onPath | visited
			stack = append(stack, frame{c, out.start[c]})
		}
	}

	dag = make([]profile.Edge, 0, len(es)-removed)
	for i, e := range es {
		if !backEdge[i] {
			dag = append(dag, profile.Edge{From: base + profile.NodeID(e[0]), To: base + profile.NodeID(e[1])})
		}
	}
	return dag, removed
}

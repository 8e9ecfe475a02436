package totals

import (
	"fmt"
	"math"

	"github.com/jsprof/jsprof/profile"
)

// vscodeTotals returns VS Code's aggregate time of every node of thread t
// (profilingModel.ts computeAggregateTime): the node's self time plus the
// aggregate times of its children, the children taken as a tree. On a call
// graph a node with several callers is added once per path through it, as
// in the tree expansion VS Code assumes; VS Code memoises each node's
// aggregate, and so does this, in one pass over the nodes in reverse
// topological order, so the expansion is never built. Its size only shows
// in the numbers: a sum beyond int64 nanoseconds returns ErrTooLarge. A
// cycle, on which VS Code's recursion never ends, returns ErrCycle.
//
// A function's VS Code total is the sum of the aggregates of all of its
// nodes, so every node keeps its aggregate.
func vscodeTotals(p *profile.Profile, t profile.ThreadID, self []profile.Time) ([]profile.Time, error) {
	n := len(self)
	es := edges(p, t)
	kids := newCSR(n, es, 0)

	// Kahn's algorithm: callers before callees.
	indeg := make([]int32, n)
	for _, e := range es {
		indeg[e[1]]++
	}
	order := make([]int32, 0, n)
	for i := range indeg {
		if indeg[i] == 0 {
			order = append(order, int32(i))
		}
	}
	for i := 0; i < len(order); i++ {
		for _, c := range kids.of(order[i]) {
			if indeg[c]--; indeg[c] == 0 {
				order = append(order, c)
			}
		}
	}
	if len(order) < n {
		for i, d := range indeg {
			if d > 0 {
				nd := &p.Nodes[p.Threads[t].Nodes.Start+int32(i)]
				return nil, fmt.Errorf("%w: %d nodes are on or below a cycle, e.g. %q (input id %d); RemoveCycles removes cycles as XS does",
					ErrCycle, n-len(order), p.Str(p.Frames[nd.Frame].Name), nd.InputID)
			}
		}
	}

	agg := make([]profile.Time, n)
	for i := n - 1; i >= 0; i-- {
		x := order[i]
		s := self[x]
		for _, c := range kids.of(x) {
			if s > math.MaxInt64-agg[c] {
				return nil, fmt.Errorf("%w: a node's total exceeds 2^63 ns (the call graph has too many paths)", ErrTooLarge)
			}
			s += agg[c]
		}
		agg[x] = s
	}
	return agg, nil
}

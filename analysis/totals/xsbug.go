package totals

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/jsprof/jsprof/profile"
)

// MaxPropagationSteps bounds the work of xsbug's propagation on one thread:
// the number of times a share is passed to a caller. Each path is cut once
// its share falls under 1 µs, so propagation ends, but the number of paths
// can grow exponentially with the depth of a graph whose nodes have several
// callers.
const MaxPropagationSteps = 100_000_000

// xsbugTotals returns, for every node of thread t, the total xsbug shows for
// it (docs/formats.md §3.3), zero for a tree node whose function is already
// counted by an ancestor (see below). The nodes are xsbug's records.
//
//  1. Records in file order. XS writes records in ascending id, so the
//     nodes are sorted by InputID (the model keeps them in preorder).
//  2. Graph. Each record's callers, unique, in the order xsbug first meets
//     them: edges in the file order of their caller, self-references
//     skipped.
//  3. Duration. The record's self time (nodeSelf: xsbug's "time until the
//     next sample" rule, timeDeltas[0] dropped).
//  4. Propagation. For every record R with samples, in file order,
//     propagate(R, duration(R)): propagate(X, d) returns at once if X is on
//     the current path; otherwise it adds d to X's total and, if X has k > 0
//     callers and d/k ≥ 1 µs, calls propagate(C, d/k) for each caller C with
//     X on the path. It runs on an explicit stack, in float64 µs.
//
// xsbug's cycle guard also removes the edge X→callee from the callers and
// callees lists it displays. The propagation itself walks a copy of every
// record's callers made before the first propagate and dropped after the
// last (ProfilePane.c, PiuProfile_createCache/fillCache/propagateAux), so the
// removal changes no total; nothing is removed here.
//
// On a tree every record has one caller, so propagate(R, d) adds d to R and,
// if d ≥ 1 µs, to each of its ancestors: xsbugTree gets the same sums in one
// pass, where step 4 would walk every hit node's whole path.
//
// The totals are rounded to the nanosecond and capped at the sum of the
// durations, which only absorbs float rounding: a share reaches a record at
// most once per path, and the shares of the paths from R sum to at most
// duration(R).
//
// Per function, the records of a call graph are summed (a function normally
// has one record). On a tree, where a record is a call path, xsbug's total of
// a node is its inclusive time, and only the outermost node of a function on
// each path is counted, so that recursion is counted once, as in DevTools.
func xsbugTotals(p *profile.Profile, t profile.ThreadID, self []profile.Time) ([]profile.Time, error) {
	h := hits(p, t)
	var sum profile.Time // xsbug's caption total: the sum of the durations
	for i, d := range self {
		if h[i] > 0 {
			sum += d
		}
	}
	graph := p.Threads[t].Shape == profile.ShapeCallGraph
	var prop []float64 // µs
	if graph {
		var err error
		if prop, err = xsbugGraph(p, t, self, h); err != nil {
			return nil, err
		}
	} else {
		prop = xsbugTree(p, t, self, h)
	}
	total := make([]profile.Time, len(self))
	count := outermost(p, t, graph)
	for i, us := range prop {
		if count[i] {
			total[i] = min(profile.TimeFromMicros(us), sum)
		}
	}
	return total, nil
}

// xsbugGraph runs steps 1 to 4 of xsbugTotals on a call graph.
func xsbugGraph(p *profile.Profile, t profile.ThreadID, self []profile.Time, h []int32) ([]float64, error) {
	n := len(self)
	base := p.Threads[t].Nodes.Start

	// 1. File order.
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		return cmp.Compare(p.Nodes[base+a].InputID, p.Nodes[base+b].InputID)
	})

	// 2. Callers.
	rank := make([]int32, n)
	for r, x := range order {
		rank[x] = int32(r)
	}
	es := edges(p, t)
	slices.SortStableFunc(es, func(a, b [2]int32) int { return cmp.Compare(rank[a[0]], rank[b[0]]) })
	seen := make(map[[2]int32]bool, len(es))
	uniq := es[:0]
	for _, e := range es {
		if e[0] != e[1] && !seen[e] {
			seen[e] = true
			uniq = append(uniq, e)
		}
	}
	callers := newCSR(n, uniq, 1)

	// 3 and 4. Durations and propagation.
	prop := make([]float64, n)
	onPath := make([]bool, n)
	type frame struct {
		node  int32
		share float64 // µs passed to each caller
		next  int32   // index into callers.adj of the next caller
	}
	var stack []frame
	enter := func(x int32, d float64) {
		if onPath[x] {
			return
		}
		prop[x] += d
		if k := callers.start[x+1] - callers.start[x]; k > 0 {
			if share := d / float64(k); share >= 1 {
				onPath[x] = true
				stack = append(stack, frame{x, share, callers.start[x]})
			}
		}
	}
	steps := 0
	for _, r := range order {
		if h[r] == 0 {
			continue
		}
		enter(r, self[r].Micros())
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == callers.start[f.node+1] {
				onPath[f.node] = false
				stack = stack[:len(stack)-1]
				continue
			}
			c, share := callers.adj[f.next], f.share
			f.next++
			if steps++; steps > MaxPropagationSteps {
				return nil, fmt.Errorf("%w: propagation takes more than %d steps (too many caller paths)", ErrTooLarge, MaxPropagationSteps)
			}
			enter(c, share)
		}
	}
	return prop, nil
}

// xsbugTree is xsbug's propagation on a tree, in one pass from the last node
// to the first (children come after their parent): a node's total is its
// own duration, if hit, plus what its children pass up; a node passes up
// that sum less its own duration if under 1 µs (propagate's share check).
func xsbugTree(p *profile.Profile, t profile.ThreadID, self []profile.Time, h []int32) []float64 {
	base := profile.NodeID(p.Threads[t].Nodes.Start)
	prop := make([]float64, len(self))
	up := make([]float64, len(self)) // what the children pass up
	for i := len(self) - 1; i >= 0; i-- {
		var d float64
		if h[i] > 0 {
			d = self[i].Micros()
		}
		prop[i] = d + up[i]
		if par := p.Nodes[base+profile.NodeID(i)].Parent; par != profile.NoNode {
			pass := up[i]
			if d >= 1 {
				pass += d
			}
			up[par-base] += pass
		}
	}
	return prop
}

// outermost reports, for each node of thread t, whether its total counts
// towards its function's: always on a call graph; on a tree, when no ancestor
// of the node belongs to the same function.
func outermost(p *profile.Profile, t profile.ThreadID, graph bool) []bool {
	th := &p.Threads[t]
	n := th.Nodes.Len()
	out := make([]bool, n)
	if graph {
		for i := range out {
			out[i] = true
		}
		return out
	}
	fn := make([]int32, n)
	ids := map[profile.FunctionKey]int32{}
	for i := range fn {
		key := p.FunctionKey(p.Nodes[th.Nodes.Start+int32(i)].Frame)
		id, ok := ids[key]
		if !ok {
			id = int32(len(ids))
			ids[key] = id
		}
		fn[i] = id
	}
	kids := newCSR(n, edges(p, t), 0)
	open := make([]int32, len(ids)) // per function: nodes on the current path
	type item struct {
		node int32
		exit bool
	}
	stack := []item{{0, false}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f := fn[it.node]
		if it.exit {
			open[f]--
			continue
		}
		out[it.node] = open[f] == 0
		open[f]++
		stack = append(stack, item{it.node, true})
		for _, c := range kids.of(it.node) {
			stack = append(stack, item{c, false})
		}
	}
	return out
}

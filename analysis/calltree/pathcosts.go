package calltree

import (
	"iter"

	"github.com/jsprof/jsprof/profile"
)

// pathCosts holds the self time of each (top-down node, model node) pair
// that received any: what per-line costs split over a model node's source
// lines. In a tree-shaped thread a model node has one call path, so its
// first pair is kept in dense per-model-node slots; other pairs (a call
// graph's node on several paths, a GC node under several parents, a trace
// entry's node under several events) go to a map. A map for every pair
// cost a hash per call, a third of the time of a tree.
type pathCosts struct {
	td   []int32 // per model node: the top-down node of its slot, −1 if none
	self []profile.Time
	more map[[2]int32]profile.Time
	n    int
}

func newPathCosts(models int) pathCosts {
	pc := pathCosts{td: make([]int32, models), self: make([]profile.Time, models)}
	for i := range pc.td {
		pc.td[i] = -1
	}
	return pc
}

// add adds d to the pair (top-down node nd, model node x), recording the
// pair even when d is 0.
func (pc *pathCosts) add(nd, x int32, d profile.Time) {
	switch pc.td[x] {
	case nd:
		pc.self[x] += d
		return
	case -1:
		pc.td[x], pc.self[x] = nd, d
		pc.n++
		return
	}
	if pc.more == nil {
		pc.more = map[[2]int32]profile.Time{}
	}
	k := [2]int32{nd, x}
	if _, ok := pc.more[k]; !ok {
		pc.n++
	}
	pc.more[k] += d
}

// len returns the number of pairs.
func (pc *pathCosts) len() int { return pc.n }

// get returns the self time of a pair and whether it was recorded.
func (pc *pathCosts) get(nd, x int32) (profile.Time, bool) {
	if pc.td[x] == nd {
		return pc.self[x], true
	}
	d, ok := pc.more[[2]int32{nd, x}]
	return d, ok
}

// all yields every pair ({top-down node, model node}) and its self time.
func (pc *pathCosts) all() iter.Seq2[[2]int32, profile.Time] {
	return func(yield func([2]int32, profile.Time) bool) {
		for x, nd := range pc.td {
			if nd >= 0 && !yield([2]int32{nd, int32(x)}, pc.self[x]) {
				return
			}
		}
		for k, d := range pc.more {
			if !yield(k, d) {
				return
			}
		}
	}
}

package calltree

import (
	"cmp"
	"slices"
)

// BottomUpRoot returns the root of the bottom-up tree as BottomUp makes
// it: its Total is the self time of the thread's functions (the sum of the
// top level's Self), its other numbers 0.
func (t *Tree) BottomUpRoot() Node {
	root := Node{Func: -1, Parent: -1, FirstChild: -1, NextSibling: -1}
	for n := 1; n < len(t.TopDown); n++ {
		root.Total += t.TopDown[n].Self
	}
	return root
}

// LazyBottomUp makes the bottom-up tree that BottomUp makes a level at a
// time, as DevTools' Bottom-Up tab opens it: a node is the top-down nodes
// n whose inverted path it ends, each with the ancestor its path has
// reached (a BottomUpPair); its callers group them by the function of
// that ancestor's parent, and n's time (its self time, and its total if it
// is the outermost call of its function) flows to every node on the path.
// A tree's size is the sum of the depths of its top-down nodes with time
// (GBs on a deep profile); made a level at a time, only the levels looked
// at are held. Not safe for concurrent use.
type LazyBottomUp struct {
	t     *Tree
	outer []bool // per top-down node, the outermost call of its function
	// slot is, per function, its node's index in the children being
	// grouped, −1 outside Children. A map cleared at each call cost the
	// size it had grown to: the top level's, all the functions, for every
	// node below it (tree --bottom-up on the many-nodes shape: 40 k
	// functions, 0.66 s of output).
	slot []int32
}

// BottomUpPair is a top-down node whose inverted path a bottom-up node
// ends (Leaf), with the ancestor of Leaf the path has reached (At).
type BottomUpPair struct{ Leaf, At int32 }

// BottomUpGroup is a bottom-up node: its numbers (Func, Self, Total and
// Calls; the links are −1) and the pairs that make its callers.
type BottomUpGroup struct {
	Node  Node
	Pairs []BottomUpPair
}

// LazyBottomUp returns the lazy maker of t's bottom-up tree.
func (t *Tree) LazyBottomUp() *LazyBottomUp {
	slot := make([]int32, len(t.Funcs))
	for i := range slot {
		slot[i] = -1
	}
	return &LazyBottomUp{t: t, outer: t.outermost(), slot: slot}
}

// Top returns the pairs of the root: every top-down node with time, in
// order.
func (b *LazyBottomUp) Top() []BottomUpPair {
	td := b.t.TopDown
	var all []BottomUpPair
	for n := int32(1); n < int32(len(td)); n++ {
		if td[n].Self != 0 || b.outer[n] && td[n].Total != 0 {
			all = append(all, BottomUpPair{n, n})
		}
	}
	return all
}

// Children returns the children of the bottom-up node whose pairs are
// given (in leaf order), in the order BottomUp makes them (that of their
// first leaf): for the root (top) the functions of the leaves, with their
// calls, else the callers of the ancestors reached.
func (b *LazyBottomUp) Children(pairs []BottomUpPair, top bool) []BottomUpGroup {
	td := b.t.TopDown
	var kids []BottomUpGroup
	for _, p := range pairs {
		at := p.At
		if !top {
			if at = td[at].Parent; at <= 0 {
				continue
			}
		}
		f := td[at].Func
		k := b.slot[f]
		if k < 0 {
			k = int32(len(kids))
			kids = append(kids, BottomUpGroup{Node: Node{Func: f, Parent: -1, FirstChild: -1, NextSibling: -1}})
			b.slot[f] = k
		}
		c := &kids[k]
		c.Node.Self += td[p.Leaf].Self
		if b.outer[p.Leaf] {
			c.Node.Total += td[p.Leaf].Total
		}
		if top {
			c.Node.Calls += td[p.Leaf].Calls
		}
		c.Pairs = append(c.Pairs, BottomUpPair{p.Leaf, at})
	}
	for _, c := range kids {
		b.slot[c.Node.Func] = -1
	}
	return kids
}

// HasCallers reports whether a bottom-up node with these pairs has
// children.
func (b *LazyBottomUp) HasCallers(pairs []BottomUpPair) bool {
	for _, p := range pairs {
		if b.t.TopDown[p.At].Parent > 0 {
			return true
		}
	}
	return false
}

// WalkBottomUp walks the bottom-up tree that BottomUp makes, depth first,
// without making it: enter is called for each node below the root in
// preorder, with its depth (1 for the top level), each node's children
// in the order Children(nodes, id, BySelf) gives them (largest self time
// first, ties in the order BottomUp made them). enter returning false
// skips the node's callers. Only the node's Func, Self, Total and Calls
// are set, and the *Node is valid during the call only. top, if not nil,
// is given each node of the top level first, to change its numbers (the
// functions' under other total-time semantics) before the level is
// ordered.
//
// The walk holds, per level of the node it is at, the callers still to
// visit and the top-down nodes that reach them (LazyBottomUp), not the
// whole tree.
func (t *Tree) WalkBottomUp(top func(n *Node), enter func(n *Node, depth int) bool) {
	b := t.LazyBottomUp()
	order := func(kids []BottomUpGroup) []BottomUpGroup {
		// Stable: ties stay in the order of their first leaf.
		slices.SortStableFunc(kids, func(x, y BottomUpGroup) int { return cmp.Compare(y.Node.Self, x.Node.Self) })
		return kids
	}
	first := b.Children(b.Top(), true)
	if top != nil {
		for i := range first {
			top(&first[i].Node)
		}
	}
	// level holds the children of one node still to visit, in order.
	type level struct {
		kids []BottomUpGroup
		next int
	}
	levels := []level{{kids: order(first)}}
	for len(levels) > 0 {
		l := &levels[len(levels)-1]
		if l.next == len(l.kids) {
			levels = levels[:len(levels)-1]
			continue
		}
		c := &l.kids[l.next]
		l.next++
		if !enter(&c.Node, len(levels)) {
			continue
		}
		pairs := c.Pairs
		c.Pairs = nil // visited: its callers hold what they need
		if kids := b.Children(pairs, false); len(kids) > 0 {
			levels = append(levels, level{kids: order(kids)})
		}
	}
}

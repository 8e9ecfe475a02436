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
// BottomUp holds the whole tree, whose size is the sum of the depths of
// the top-down nodes with time (a deep profile's is 30 M nodes, GBs); the
// walk holds, per level of the node it is at, the callers still to visit
// and the top-down nodes that reach them. It is the lazy tree DevTools'
// Bottom-Up tab opens node by node: a node is the top-down nodes n whose
// inverted path it ends, each with the ancestor a its path has reached;
// its callers group them by the function of a's parent, and n's time
// (its self time, and its total if it is the outermost call of its
// function) flows to every node on the path.
func (t *Tree) WalkBottomUp(top func(n *Node), enter func(n *Node, depth int) bool) {
	td := t.TopDown
	outer := t.outermost()
	var all []buPair
	for n := int32(1); n < int32(len(td)); n++ {
		if td[n].Self != 0 || outer[n] && td[n].Total != 0 {
			all = append(all, buPair{n, n})
		}
	}
	var index map[FuncID]int32
	// level holds the children of one node still to visit, in order.
	type level struct {
		kids []buChild
		next int
	}
	levels := []level{{kids: t.buChildren(all, true, outer, &index, top)}}
	for len(levels) > 0 {
		l := &levels[len(levels)-1]
		if l.next == len(l.kids) {
			levels = levels[:len(levels)-1]
			continue
		}
		c := &l.kids[l.next]
		l.next++
		if !enter(&c.node, len(levels)) {
			continue
		}
		pairs := c.pairs
		c.pairs = nil // visited: its callers hold what they need
		if kids := t.buChildren(pairs, false, outer, &index, nil); len(kids) > 0 {
			levels = append(levels, level{kids: kids})
		}
	}
}

// buPair is a top-down node whose inverted path a bottom-up node ends
// (leaf), with the ancestor of leaf the path has reached (at).
type buPair struct{ leaf, at int32 }

// buChild is a bottom-up node made by buChildren.
type buChild struct {
	node  Node
	pairs []buPair
}

// buChildren returns the children of a bottom-up node whose pairs are
// given (in leaf order), sorted as Children sorts BottomUp's: for the
// root (top) the functions of the leaves, else the callers of the
// ancestors reached. adjust, if not nil, changes each child's numbers
// before they are ordered.
func (t *Tree) buChildren(pairs []buPair, top bool, outer []bool, index *map[FuncID]int32, adjust func(*Node)) []buChild {
	td := t.TopDown
	if *index == nil {
		*index = map[FuncID]int32{}
	}
	clear(*index)
	var kids []buChild
	for _, p := range pairs {
		at := p.at
		if !top {
			if at = td[at].Parent; at <= 0 {
				continue
			}
		}
		f := td[at].Func
		k, ok := (*index)[f]
		if !ok {
			k = int32(len(kids))
			kids = append(kids, buChild{node: Node{Func: f, Parent: -1, FirstChild: -1, NextSibling: -1}})
			(*index)[f] = k
		}
		c := &kids[k]
		c.node.Self += td[p.leaf].Self
		if outer[p.leaf] {
			c.node.Total += td[p.leaf].Total
		}
		if top {
			c.node.Calls += td[p.leaf].Calls
		}
		c.pairs = append(c.pairs, buPair{p.leaf, at})
	}
	if adjust != nil {
		for i := range kids {
			adjust(&kids[i].node)
		}
	}
	// Made in the order of their first leaf, as BottomUp makes them.
	slices.SortStableFunc(kids, func(a, b buChild) int { return cmp.Compare(b.node.Self, a.node.Self) })
	return kids
}

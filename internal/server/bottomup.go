package server

import (
	"sync"

	"github.com/jsprof/jsprof/analysis/calltree"
)

// bottomUp is a tree's bottom-up (inverted) tree built lazily, as DevTools
// builds its Bottom-Up tab: a node's children are made when it is first
// opened (calltree.LazyBottomUp, whose numbers and child order are those
// of calltree.Tree.BottomUp, which builds every node at once: seconds on a
// big profile). Children are made in the order of the first top-down node
// that reaches them, so that ties sort as in BottomUp.
type bottomUp struct {
	mu    sync.Mutex
	lazy  *calltree.LazyBottomUp
	nodes []calltree.Node           // nodes[0] is the root; FirstChild −1 until opened
	pairs [][]calltree.BottomUpPair // per node not yet opened, what makes its children
	kids  []bool                    // per node, whether it has children
	open  []bool                    // per node, whether its children were made
}

func newBottomUp(t *calltree.Tree) *bottomUp {
	lazy := t.LazyBottomUp()
	b := &bottomUp{
		lazy:  lazy,
		nodes: []calltree.Node{t.BottomUpRoot()},
		pairs: [][]calltree.BottomUpPair{lazy.Top()},
		kids:  []bool{false},
		open:  []bool{false},
	}
	b.expand(0)
	return b
}

// expand makes the children of node id (the root's from the pairs' own
// functions, every other node's from the callers the pairs reach).
func (b *bottomUp) expand(id int32) {
	if b.open[id] {
		return
	}
	b.open[id] = true
	for _, g := range b.lazy.Children(b.pairs[id], id == 0) {
		c := int32(len(b.nodes))
		nd := g.Node
		nd.Parent, nd.NextSibling = id, b.nodes[id].FirstChild
		b.nodes = append(b.nodes, nd)
		b.nodes[id].FirstChild = c
		b.pairs = append(b.pairs, g.Pairs)
		b.kids = append(b.kids, b.lazy.HasCallers(g.Pairs))
		b.open = append(b.open, false)
	}
	b.pairs[id] = nil // opened: its children hold what they need
}

// children returns node id's children, making them if needed, largest
// self time first (ties in creation order), with a copy of each child
// node and whether it has children in turn.
func (b *bottomUp) children(id int32) ([]int32, []calltree.Node, []bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expand(id)
	ids := calltree.Children(b.nodes, id, calltree.BySelf)
	nodes := make([]calltree.Node, len(ids))
	kids := make([]bool, len(ids))
	for i, c := range ids {
		nodes[i], kids[i] = b.nodes[c], b.kids[c]
	}
	return ids, nodes, kids
}

// has reports whether id is a node made so far.
func (b *bottomUp) has(id int32) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return id >= 0 && int(id) < len(b.nodes)
}

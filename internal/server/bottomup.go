package server

import (
	"sync"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/profile"
)

// bottomUp is a tree's bottom-up (inverted) tree built lazily, as DevTools
// builds its Bottom-Up tab: a node's children are made when it is first
// opened. Its numbers and child order are those of calltree.Tree.BottomUp
// (which builds every node at once: seconds on a big profile): a node
// holds, per top-down node n that ends its inverted path, the top-down
// node its path has reached; the time of n (its self time, and its total
// if it is the outermost call of its function) flows to every node on the
// path, and children are made in the order of the first n that reaches
// them, so that ties sort as in BottomUp.
type bottomUp struct {
	mu    sync.Mutex
	t     *calltree.Tree
	nodes []calltree.Node // nodes[0] is the root; FirstChild −1 until opened
	pairs [][]buPair      // per node, (leaf, reached) in leaf order
	kids  []bool          // per node, whether it has children
	open  []bool          // per node, whether its children were made
	outer []bool          // per top-down node, outermost of its function
}

type buPair struct{ leaf, at int32 }

func newBottomUp(t *calltree.Tree) *bottomUp {
	td := t.TopDown
	b := &bottomUp{t: t, outer: make([]bool, len(td))}
	// outermost: no ancestor has the same function. A depth-first walk
	// with an explicit stack counts the calls of each function on the path.
	onPath := map[calltree.FuncID]int32{}
	type item struct {
		n    int32
		exit bool
	}
	stack := []item{}
	for c := td[0].FirstChild; c >= 0; c = td[c].NextSibling {
		stack = append(stack, item{c, false})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f := td[it.n].Func
		if it.exit {
			onPath[f]--
			continue
		}
		b.outer[it.n] = onPath[f] == 0
		onPath[f]++
		stack = append(stack, item{it.n, true})
		for c := td[it.n].FirstChild; c >= 0; c = td[c].NextSibling {
			stack = append(stack, item{c, false})
		}
	}
	b.nodes = []calltree.Node{{Func: -1, Parent: -1, FirstChild: -1, NextSibling: -1}}
	b.pairs = [][]buPair{nil}
	b.kids = []bool{false}
	b.open = []bool{false}
	var all []buPair
	for n := int32(1); n < int32(len(td)); n++ {
		if td[n].Self != 0 || b.total(n) != 0 {
			all = append(all, buPair{n, n})
		}
	}
	b.pairs[0] = all
	b.expand(0)
	var sum profile.Time
	for c := b.nodes[0].FirstChild; c >= 0; c = b.nodes[c].NextSibling {
		sum += b.nodes[c].Self
	}
	b.nodes[0].Total = sum
	return b
}

// total is the time top-down node n adds to the totals of its inverted
// path.
func (b *bottomUp) total(n int32) profile.Time {
	if b.outer[n] {
		return b.t.TopDown[n].Total
	}
	return 0
}

// expand makes the children of node id (the root's from the pairs' own
// functions, every other node's from the callers the pairs reach).
func (b *bottomUp) expand(id int32) {
	if b.open[id] {
		return
	}
	b.open[id] = true
	td := b.t.TopDown
	index := map[calltree.FuncID]int32{}
	for _, pr := range b.pairs[id] {
		at := pr.at
		if id != 0 {
			at = td[pr.at].Parent
			if at <= 0 {
				continue
			}
		}
		f := td[at].Func
		c, ok := index[f]
		if !ok {
			c = int32(len(b.nodes))
			b.nodes = append(b.nodes, calltree.Node{Func: f, Parent: id, FirstChild: -1, NextSibling: b.nodes[id].FirstChild})
			b.nodes[id].FirstChild = c
			b.pairs = append(b.pairs, nil)
			b.kids = append(b.kids, false)
			b.open = append(b.open, false)
			index[f] = c
		}
		b.nodes[c].Self += td[pr.leaf].Self
		b.nodes[c].Total += b.total(pr.leaf)
		if id == 0 {
			b.nodes[c].Calls += td[pr.leaf].Calls
		}
		b.pairs[c] = append(b.pairs[c], buPair{pr.leaf, at})
		if td[at].Parent > 0 {
			b.kids[c] = true
		}
	}
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

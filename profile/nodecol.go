package profile

import (
	"fmt"
	"iter"
)

// Nodes is the column of sample nodes (Samples.Node).
//
// A long recording's samples are most of its memory, and most profiles
// have far fewer than 65,536 nodes (a 20 MB recording of 3 M samples, 3,000
// nodes): so a column keeps its nodes in 2 bytes each while every node it
// holds is below 1<<16, and turns into 4-byte NodeIDs, once, when one is not
// (as Times turns to ns). Readers that know their nodes ahead make the
// column in the width it will have (NarrowNodes, WideNodes).
//
// The zero value is an empty narrow column. Slice shares the storage;
// Append and Set may replace it (like append), so a slice taken before
// either does not see the change.
type Nodes struct {
	narrow []uint16
	wide   []NodeID // the nodes, when not narrow
}

// NarrowLimit is the first node a narrow column cannot hold.
const NarrowLimit = 1 << 16

// NarrowNodes returns the column of the nodes ns, keeping ns as its storage.
func NarrowNodes(ns []uint16) Nodes { return Nodes{narrow: ns} }

// WideNodes returns the column of the nodes ns, keeping ns as its storage.
func WideNodes(ns []NodeID) Nodes {
	if ns == nil {
		ns = []NodeID{}
	}
	return Nodes{wide: ns}
}

// NodesOf returns a column of the nodes ns, narrow when they allow it.
func NodesOf(ns ...NodeID) Nodes {
	var c Nodes
	c.Grow(len(ns))
	for _, n := range ns {
		c.Append(n)
	}
	return c
}

// Len returns the number of nodes.
func (c *Nodes) Len() int {
	if c.wide != nil {
		return len(c.wide)
	}
	return len(c.narrow)
}

// At returns node i.
func (c *Nodes) At(i int) NodeID {
	if c.wide != nil {
		return c.wide[i]
	}
	return NodeID(c.narrow[i])
}

// Columns returns the storage: the narrow nodes, or the wide ones (the
// other nil). Loops over every sample read the slice of their width.
func (c Nodes) Columns() ([]uint16, []NodeID) { return c.narrow, c.wide }

// Narrow tells whether the nodes are kept in 2 bytes each.
func (c *Nodes) Narrow() bool { return c.wide == nil }

// Slice returns nodes [lo, hi), sharing the storage.
func (c Nodes) Slice(lo, hi int) Nodes {
	if c.wide != nil {
		return Nodes{wide: c.wide[lo:hi]}
	}
	return Nodes{narrow: c.narrow[lo:hi]}
}

// Append appends n.
func (c *Nodes) Append(n NodeID) {
	if c.wide == nil {
		if uint32(n) < NarrowLimit {
			c.narrow = append(c.narrow, uint16(n))
			return
		}
		c.widen(1)
	}
	c.wide = append(c.wide, n)
}

// Set sets node i to n.
func (c *Nodes) Set(i int, n NodeID) {
	if c.wide == nil {
		if uint32(n) < NarrowLimit {
			c.narrow[i] = uint16(n)
			return
		}
		c.widen(0)
	}
	c.wide[i] = n
}

// Grow makes room for n more nodes without another allocation.
func (c *Nodes) Grow(n int) {
	if c.wide != nil {
		if cap(c.wide)-len(c.wide) < n {
			c.wide = append(make([]NodeID, 0, len(c.wide)+n), c.wide...)
		}
		return
	}
	if cap(c.narrow)-len(c.narrow) < n {
		c.narrow = append(make([]uint16, 0, len(c.narrow)+n), c.narrow...)
	}
}

// Widen turns the column into 4-byte nodes (a reader about to append nodes
// of 1<<16 or more), with room for extra more.
func (c *Nodes) Widen(extra int) {
	if c.wide == nil {
		c.widen(extra)
	}
}

func (c *Nodes) widen(extra int) {
	w := make([]NodeID, len(c.narrow), len(c.narrow)+max(extra, cap(c.narrow)-len(c.narrow)))
	for i, n := range c.narrow {
		w[i] = NodeID(n)
	}
	c.wide, c.narrow = w, nil
}

// Cap returns the number of nodes the column has room for.
func (c Nodes) Cap() int {
	if c.wide != nil {
		return cap(c.wide)
	}
	return cap(c.narrow)
}

// bounds returns the least and the greatest node (0 and −1 for none), in
// a loop over the column's slice: through At, with its test of the width
// at every node, a long recording's validation took twice as long
// (docs/performance.md §5q).
func (c Nodes) bounds() (lo, hi NodeID) {
	if c.Len() == 0 {
		return 0, -1
	}
	if c.wide != nil {
		return bounds(c.wide)
	}
	l, h := bounds(c.narrow)
	return NodeID(l), NodeID(h)
}

// bounds is Nodes.bounds over a column's storage, which is not empty.
func bounds[T uint16 | NodeID](ns []T) (lo, hi T) {
	lo, hi = ns[0], ns[0]
	for _, n := range ns {
		lo, hi = min(lo, n), max(hi, n)
	}
	return lo, hi
}

// Wide returns the nodes as a new slice of NodeIDs.
func (c Nodes) Wide() []NodeID {
	w := make([]NodeID, c.Len())
	for i := range w {
		w[i] = c.At(i)
	}
	return w
}

// String formats the nodes as a slice of them would be.
func (c Nodes) String() string { return fmt.Sprint(c.Wide()) }

// All yields each index and node.
func (c Nodes) All() iter.Seq2[int, NodeID] {
	return func(yield func(int, NodeID) bool) {
		if c.wide != nil {
			for i, n := range c.wide {
				if !yield(i, n) {
					return
				}
			}
			return
		}
		for i, n := range c.narrow {
			if !yield(i, NodeID(n)) {
				return
			}
		}
	}
}

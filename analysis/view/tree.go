package view

import (
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/profile"
)

// Tree applies the view and the transforms of opts (all but the range,
// which the tree was built with) to a top-down tree and returns a new tree;
// t is not changed. Each top-down node is a call path, so a transform is a
// mapping of paths, computed root first in one pass over the nodes:
//
//   - a node through a dropped function vanishes with its subtree;
//   - with Focus, a node outside every focused function loses its self time,
//     and the outermost focused node on a path starts a new path at the root;
//   - a node whose function is merged, or not in the view, is transparent:
//     its self time goes to the node its parent maps to, its children hang
//     there too;
//   - with CollapseRecursion, a node of the same function as the node its
//     parent maps to maps to that node.
//
// Self times are summed over the nodes mapping to a node; totals are then
// sums over subtrees, and a function's total counts only its outermost
// nodes, as in DevTools. With zero options the result has the same nodes,
// in the same order, with the same times as t.
//
// The second result maps each node of t to the node of the new tree its
// time went to, or −1 where the time is not shown (dropped, or outside
// every focused function).
func Tree(t *calltree.Tree, opts Options) (*calltree.Tree, []int32) {
	p := t.Profile
	td := t.TopDown
	type mapped struct {
		out     int32 // node of the new tree; −1: removed
		focused bool
	}
	m := make([]mapped, len(td))
	m[0] = mapped{out: 0, focused: len(opts.Focus) == 0}
	b := calltree.NewTreeBuilder(t)
	match := func(ms []Matcher, f *profile.Frame) bool { return matchAny(p, ms, f) }
	inView := func(f *profile.Frame) bool {
		switch opts.View {
		case JS:
			return RelevantForJS(p, f)
		case Platform:
			return RelevantForPlatform(f)
		}
		return true
	}
	for n := int32(1); n < int32(len(td)); n++ {
		nd := &td[n]
		pm := m[nd.Parent]
		if pm.out < 0 {
			m[n] = mapped{out: -1}
			continue
		}
		fn := nd.Func
		fr := &p.Frames[t.Funcs[fn].Frame]
		if match(opts.Drop, fr) {
			m[n] = mapped{out: -1}
			continue
		}
		cur := mapped{out: pm.out, focused: pm.focused}
		switch {
		case !cur.focused && match(opts.Focus, fr):
			cur.focused = true
			cur.out = b.Child(0, fn)
		case !cur.focused:
			// Outside every focused function: the time is not shown.
		case match(opts.Merge, fr) || !inView(fr):
			// Transparent.
		case opts.CollapseRecursion && cur.out > 0 && b.Func(cur.out) == fn:
			// A direct recursive call: one with its caller.
		default:
			cur.out = b.Child(cur.out, fn)
		}
		m[n] = cur
		if cur.focused {
			b.Add(cur.out, nd.Self, nd.Calls, cur.out != pm.out || !pm.focused)
		}
	}
	to := make([]int32, len(td))
	for n := range m {
		to[n] = m[n].out
		if !m[n].focused {
			to[n] = -1
		}
	}
	tree := b.Finish()
	tree.SetLineSource(t, to)
	return tree, to
}

// matchAny reports whether any of ms matches frame f.
func matchAny(p *profile.Profile, ms []Matcher, f *profile.Frame) bool {
	for _, m := range ms {
		if m.Match(p, f) {
			return true
		}
	}
	return false
}

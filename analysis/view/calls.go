package view

import (
	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
)

// Calls applies the view, range and transforms of o to a thread's calls (in
// DevTools' order, nested by Depth) and returns the calls kept, in a new
// slice: a call is kept if it overlaps the range (o.From–To from origin,
// within the window [from, to]), is in the view, is not a dropped function
// or inside one, is inside a focused function (when any), is not a merged
// function, and is not a direct recursive call of its kept parent (with
// CollapseRecursion).
func Calls(p *profile.Profile, cs []calls.Call, from, to, origin profile.Time, o *Options) []calls.Call {
	if o.IsZero() {
		return cs
	}
	from = max(from, origin+o.From)
	if o.To > 0 {
		to = min(to, origin+o.To)
	}
	match := func(ms []Matcher, f *profile.Frame) bool { return matchAny(p, ms, f) }
	type open struct {
		depth   int32
		dropped bool
		focused bool
		fn      profile.FunctionKey
		kept    bool
	}
	var stack []open
	var out []calls.Call
	for _, c := range cs {
		for len(stack) > 0 && stack[len(stack)-1].depth >= c.Depth {
			stack = stack[:len(stack)-1]
		}
		f := p.NodeFrame(c.Node)
		var par open
		if len(stack) > 0 {
			par = stack[len(stack)-1]
		}
		cur := open{depth: c.Depth, fn: p.FunctionKey(p.Nodes[c.Node].Frame),
			dropped: par.dropped || match(o.Drop, f), focused: par.focused || match(o.Focus, f)}
		inView := o.View == All || o.View == JS && RelevantForJS(p, f) || o.View == Platform && RelevantForPlatform(f)
		recursive := o.CollapseRecursion && len(stack) > 0 && par.kept && par.fn == cur.fn
		cur.kept = !cur.dropped && (len(o.Focus) == 0 || cur.focused) && !match(o.Merge, f) && inView && !recursive &&
			c.Start < to && c.Start+c.Dur > from
		if recursive {
			cur.kept = false
			cur.fn = par.fn
		}
		stack = append(stack, cur)
		if cur.kept {
			out = append(out, c)
		}
	}
	return out
}

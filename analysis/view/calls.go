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
	f := NewCallFilter(p, from, to, origin, o)
	var out []calls.Call
	for i := range cs {
		if f.Keep(&cs[i]) {
			out = append(out, cs[i])
		}
	}
	return out
}

// CallFilter is Calls a call at a time, for calls that are not held: Keep
// is given each call in DevTools' order.
type CallFilter struct {
	p        *profile.Profile
	o        *Options
	from, to profile.Time
	stack    []openCall
}

type openCall struct {
	depth   int32
	dropped bool
	focused bool
	fn      profile.FunctionKey
	kept    bool
}

// NewCallFilter returns the filter of Calls with the same arguments.
func NewCallFilter(p *profile.Profile, from, to, origin profile.Time, o *Options) *CallFilter {
	from = max(from, origin+o.From)
	if o.To > 0 {
		to = min(to, origin+o.To)
	}
	return &CallFilter{p: p, o: o, from: from, to: to}
}

// Keep reports whether Calls keeps c, the call after those given before.
func (f *CallFilter) Keep(c *calls.Call) bool {
	p, o := f.p, f.o
	match := func(ms []Matcher, fr *profile.Frame) bool { return matchAny(p, ms, fr) }
	for len(f.stack) > 0 && f.stack[len(f.stack)-1].depth >= c.Depth {
		f.stack = f.stack[:len(f.stack)-1]
	}
	fr := p.NodeFrame(c.Node)
	var par openCall
	if len(f.stack) > 0 {
		par = f.stack[len(f.stack)-1]
	}
	cur := openCall{depth: c.Depth, fn: p.FunctionKey(p.Nodes[c.Node].Frame),
		dropped: par.dropped || match(o.Drop, fr), focused: par.focused || match(o.Focus, fr)}
	inView := o.View == All || o.View == JS && RelevantForJS(p, fr) || o.View == Platform && RelevantForPlatform(fr)
	recursive := o.CollapseRecursion && len(f.stack) > 0 && par.kept && par.fn == cur.fn
	cur.kept = !cur.dropped && (len(o.Focus) == 0 || cur.focused) && !match(o.Merge, fr) && inView && !recursive &&
		c.Start < f.to && c.Start+c.Dur > f.from
	if recursive {
		cur.kept = false
		cur.fn = par.fn
	}
	f.stack = append(f.stack, cur)
	return cur.kept
}

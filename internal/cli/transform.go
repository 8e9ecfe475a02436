package cli

import (
	"flag"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// transformFlags are the view, range and transform flags of top, tree and
// calls.
type transformFlags struct {
	view               *string
	from, to           *float64
	focus, merge, drop listFlag
	collapseRecursion  *bool
}

func addTransformFlags(fs *flag.FlagSet) *transformFlags {
	t := &transformFlags{
		view:              fs.String("view", "", "frames to keep: `js` (JS plus the platform frames that explain entry and exit), platform, or all (default: all, DevTools' exact numbers)"),
		from:              fs.Float64("from", 0, "start of the range, in `ms` from the first sample"),
		to:                new(float64),
		collapseRecursion: fs.Bool("collapse-recursion", false, "count directly recursive calls of a function as one"),
	}
	// The end of the range is --to, or --until where --to is taken (convert's
	// output format); both are accepted where they can be.
	const toUsage = "end of the range, in `ms` from the first sample (0: the end)"
	if fs.Lookup("to") == nil {
		fs.Float64Var(t.to, "to", 0, toUsage)
	}
	fs.Float64Var(t.to, "until", 0, toUsage)
	fs.Var(&t.focus, "focus", "only the time spent in `FUNC` (name, or name@url:line), re-rooted at it; repeatable")
	fs.Var(&t.merge, "merge", "remove `FUNC`'s frames, giving its self time to its caller; repeatable")
	fs.Var(&t.drop, "drop", "drop the time spent in `FUNC`; repeatable")
	return t
}

// options parses the flags; nil flags (a command without them) give zero
// options.
func (t *transformFlags) options() (view.Options, error) {
	var o view.Options
	if t == nil {
		return o, nil
	}
	var err error
	if o.View, err = view.ParseView(*t.view); err != nil {
		return o, usagef("--view: %v", err)
	}
	if *t.from < 0 || *t.to < 0 || (*t.to > 0 && *t.to <= *t.from) {
		return o, usagef("--from and --to (--until) must be ≥ 0 with the end after the start")
	}
	o.From, o.To = profile.Time(*t.from*1e6), profile.Time(*t.to*1e6)
	o.CollapseRecursion = *t.collapseRecursion
	for _, x := range []struct {
		name string
		in   listFlag
		out  *[]view.Matcher
	}{{"focus", t.focus, &o.Focus}, {"merge", t.merge, &o.Merge}, {"drop", t.drop, &o.Drop}} {
		for _, s := range x.in {
			m, err := view.ParseMatcher(s)
			if err != nil {
				return o, usagef("--%s %s: %v", x.name, strconv.Quote(s), err)
			}
			*x.out = append(*x.out, m)
		}
	}
	return o, nil
}

// filterCalls applies the view, range and transforms to a thread's calls
// (in DevTools' order, nested by Depth): a call is kept if it overlaps the
// range, is in the view, is not a dropped function or inside one, is inside
// a focused function (when any), is not a merged function, and is not a
// direct recursive call of its kept parent (with CollapseRecursion).
func filterCalls(p *profile.Profile, tl *calls.Timeline, cs []calls.Call, o *view.Options) []calls.Call {
	if o.IsZero() {
		return cs
	}
	ts := tl.Times
	var from, to profile.Time
	if len(ts) > 0 {
		from, to = ts[0]+o.From, ts[len(ts)-1]
		if o.To > 0 {
			to = min(to, ts[0]+o.To)
		}
	}
	match := func(ms []view.Matcher, f *profile.Frame) bool {
		for _, m := range ms {
			if m.Match(p, f) {
				return true
			}
		}
		return false
	}
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
		inView := o.View == view.All || o.View == view.JS && view.RelevantForJS(p, f) || o.View == view.Platform && view.RelevantForPlatform(f)
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

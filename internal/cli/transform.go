package cli

import (
	"flag"
	"strconv"
	"strings"

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

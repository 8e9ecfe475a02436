package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/profile"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// transformFlags are the view, range and transform flags of top, tree,
// calls and convert.
type transformFlags struct {
	view               *string
	from               *float64
	to                 rangeEnd
	focus, merge, drop listFlag
	collapseRecursion  *bool
	// formatTo accepts a format name given to --to (convert's old
	// spelling of --format).
	formatTo bool
}

// rangeEnd is --to: the end of the range in ms. Before --format existed,
// convert's --to named the output format, so a value that is a format name
// is kept (with a deprecation note) for convert to use; --until is the old
// spelling of the range end there.
type rangeEnd struct {
	ms     float64
	format string // a format name given to --to
	until  bool   // set through --until
}

func (r *rangeEnd) String() string { return strconv.FormatFloat(r.ms, 'f', -1, 64) }

func (r *rangeEnd) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if _, ok := format.Lookup(s); ok {
			r.format = s
			return nil
		}
		return fmt.Errorf("want the end of the range in ms, got %q", s)
	}
	r.ms = v
	return nil
}

// untilFlag is --until, the deprecated spelling of --to.
type untilFlag struct{ r *rangeEnd }

func (u untilFlag) String() string { return "" }

func (u untilFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want the end of the range in ms, got %q", s)
	}
	u.r.ms, u.r.until = v, true
	return nil
}

func addTransformFlags(fs *flag.FlagSet) *transformFlags {
	t := &transformFlags{
		view:              fs.String("view", "", "frames to keep: `js` (JS plus the platform frames that explain entry and exit), platform, or all (default: all, DevTools' exact numbers)"),
		from:              fs.Float64("from", 0, "start of the range, in `ms` from the first sample"),
		collapseRecursion: fs.Bool("collapse-recursion", false, "count directly recursive calls of a function as one"),
	}
	fs.Var(&t.to, "to", "end of the range, in `ms` from the first sample (0: the end)")
	fs.Var(untilFlag{&t.to}, "until", "old spelling of --to (deprecated)")
	fs.Var(&t.focus, "focus", "only the time spent in `FUNC` (a name, a regular expression, name@file.js:LINE, or file.js:LINE), re-rooted at it; repeatable")
	fs.Var(&t.merge, "merge", "remove `FUNC`'s frames, giving its self time to its caller; repeatable")
	fs.Var(&t.drop, "drop", "drop the time spent in `FUNC`; repeatable")
	return t
}

// notes returns the deprecation notes of the flags used, for stderr.
func (t *transformFlags) notes() []string {
	var out []string
	if t.to.until {
		out = append(out, "jsprof: --until is deprecated: the range ends with --to in every command")
	}
	if t.to.format != "" {
		out = append(out, fmt.Sprintf("jsprof: --to %s is deprecated: name the output format with --format %s (--to ends the range)", t.to.format, t.to.format))
	}
	return out
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
	if t.to.format != "" && !t.formatTo {
		return o, usagef("--to ends the range, in ms from the first sample: %q is a format (convert --format)", t.to.format)
	}
	to := t.to.ms
	if *t.from < 0 || to < 0 || (to > 0 && to <= *t.from) {
		return o, usagef("--from and --to must be ≥ 0 with the end after the start")
	}
	o.From, o.To = profile.Time(*t.from*1e6), profile.Time(to*1e6)
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

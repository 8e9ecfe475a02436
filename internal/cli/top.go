package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

const topUsage = `Usage: jsprof top [-n N] [--by self|total] [--total SEM] [--lines] [--json] [--thread SEL] FILE

Lists the hottest functions of each thread with their self and total time in
ms and as a share of the thread's time: DevTools' Bottom-Up tab. On a trace
thread the list holds trace events (Layout, FunctionCall, GC, …) beside the
JS functions, as the panel shows them. Functions are told apart by name,
script, line and column; total time counts a function once per stack
(recursion is not counted twice), as DevTools does. --lines lists the
hottest source lines from the profile's positionTicks instead.

--total picks the total-time semantics: devtools (a function counted once
per stack), vscode (summed over every node: recursion and shared callees
count again, so totals can exceed the profile) or xsbug (self time
propagated from callees to callers, split equally among callers). XS call
graphs default to xsbug, everything else to devtools; the text output says
which was used and why.

--json prints {"threads":[{"pid","tid","name","totalSemantics","functions":
[{"name","url","line","col","selfMs","totalMs"}]}]} ("event":true marks a
trace event), hottest first; -n 0 lists all. With --lines:
{"threads":[{"pid","tid","name","lines":[{"name","url","line","col",
"sourceLine","ticks","selfMs"}]}]} where line/col are the function's
(0-based) and sourceLine the sampled line (1-based, as in positionTicks).
See the README's JSON contracts.
`

func runTop(e *env, args []string) error {
	fs := newFlags("top")
	common := addCommonFlags(fs)
	transform := addTransformFlags(fs)
	n := fs.Int("n", 20, "number of functions; 0 for all")
	by := fs.String("by", "self", "sort by self or total time")
	lines := fs.Bool("lines", false, "list hot source lines (positionTicks)")
	totalSem := fs.String("total", "", "total-time semantics: `devtools` (a function counted once per stack), vscode (summed over every node, can exceed the profile) or xsbug (self time propagated to callers, split equally); default: xsbug for XS call graphs, else devtools")
	asJSON := fs.Bool("json", false, "print JSON")
	name, err := parseFlags(e, fs, topUsage, args)
	if err != nil {
		return err
	}
	var order calltree.By
	switch *by {
	case "self":
		order = calltree.BySelf
	case "total":
		order = calltree.ByTotal
	default:
		return usagef("unknown --by %q; want self or total", *by)
	}
	if *n < 0 {
		return usagef("-n must be ≥ 0")
	}
	if *lines && *by != "self" {
		return usagef("--lines lists the self time of source lines: --by %s does not apply", *by)
	}
	l, sems, err := loadTrees(e, name, common, transform, *totalSem)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	if *lines {
		return writeLines(w, l, *n, *asJSON)
	}
	if *asJSON {
		return writeTopJSON(w, l, order, *n, sems)
	}
	p := l.profile
	for i, ta := range l.threads {
		th := l.thread(ta)
		if i > 0 {
			fmt.Fprintln(w)
		}
		total := ta.tree.TopDown[0].Total
		fmt.Fprintf(w, "thread pid %d tid %d \"%s\": %s; total time: %s\n", th.PID, th.TID, visible(th.Name), timeLabel(ta), sems[i])
		ids := calltree.Top(p, ta.funcs, order, *n)
		var max profile.Time
		for _, id := range ids {
			max = maxTime(max, ta.funcs[id].Self, ta.funcs[id].Total)
		}
		u := unitFor(max)
		fmt.Fprintf(w, "%10s %6s %10s %6s  %s\n", u.header("self"), "self%", u.header("total"), "total%", "function")
		for _, id := range ids {
			f := &ta.funcs[id]
			fmt.Fprintf(w, "%10s %5.1f%% %10s %5.1f%%  %s\n", u.fmt(f.Self), pct(f.Self, total),
				u.fmt(f.Total), pct(f.Total, total), funcLabel(p, f))
		}
	}
	return nil
}

// timeLabel says what a thread's tree adds up to: the sampled time of a
// profile, or the time of a trace thread's Call Tree (its trace events and
// JS calls, as DevTools' Call Tree tab shows them).
func timeLabel(ta *threadAnalysis) string {
	total := ta.tree.TopDown[0].Total
	if ta.st.IsTrace() {
		return duration(total) + " in trace events and JS calls"
	}
	return duration(total) + " sampled"
}

func maxTime(ts ...profile.Time) profile.Time {
	var m profile.Time
	for _, t := range ts {
		m = max(m, t)
	}
	return m
}

func pct(x, total profile.Time) float64 {
	if total <= 0 {
		return 0
	}
	return 100 * float64(x) / float64(total)
}

// funcLabel renders a function as "name url:line:col" with 1-based positions
// for people (the JSON keeps the file's 0-based ones); a trace event is its
// name.
func funcLabel(p *profile.Profile, f *calltree.Function) string {
	k := f.Key
	name := p.Str(k.Name)
	if name == "" {
		name = "(anonymous)"
	}
	name = visible(name)
	url := p.Str(p.Frames[f.Frame].URL)
	if url == "" || k.Event {
		return name
	}
	url = visible(url)
	switch {
	case k.Line < 0:
		return name + "  " + url
	case k.Column < 0:
		return fmt.Sprintf("%s  %s:%d", name, url, k.Line+1)
	}
	return fmt.Sprintf("%s  %s:%d:%d", name, url, k.Line+1, k.Column+1)
}

// reportThread names a thread for JSON output.
func reportThread(th *profile.Thread) report.Thread {
	return report.Thread{PID: th.PID, TID: th.TID, Name: th.Name}
}

// reportFunction names a function for JSON output.
func reportFunction(p *profile.Profile, f *calltree.Function) report.Function {
	k := f.Key
	return report.Function{Name: p.Str(k.Name), URL: p.Str(p.Frames[f.Frame].URL), Line: k.Line, Col: k.Column, Event: k.Event}
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// semantics is the total-time semantics used for a thread, and why.
type semantics struct {
	s      totals.Semantics
	reason string
}

func (s semantics) String() string {
	if s.reason == "" {
		return s.s.String()
	}
	return s.s.String() + " (" + s.reason + ")"
}

// loadTrees loads name with its call trees, under the view and transforms,
// with per-function totals under the semantics named by totalSem.
func loadTrees(e *env, name string, common *commonFlags, transform *transformFlags, totalSem string) (*loaded, []semantics, error) {
	l, err := load(e, name, loadOptions{trees: true, common: common, transform: transform})
	if err != nil {
		return nil, nil, err
	}
	vo, _ := transform.options() // already checked by load
	sems, err := applyTotals(e, l, totalSem, vo)
	if err != nil {
		return nil, nil, err
	}
	return l, sems, nil
}

// applyTotals sets each thread's per-function table under the semantics
// named (or the thread's default) and returns the semantics used per
// thread.
func applyTotals(e *env, l *loaded, name string, vo view.Options) ([]semantics, error) {
	var sem *totals.Semantics
	if name != "" {
		s, err := totals.ParseSemantics(name)
		if err != nil {
			return nil, usagef("--total: %v", err)
		}
		sem = &s
	}
	out := make([]semantics, len(l.threads))
	for i, ta := range l.threads {
		fs, err := ta.st.Functions(e.ctx, vo, sem)
		if errors.Is(err, session.ErrSemanticsWithView) {
			return nil, usagef("--total %s: %v", name, err)
		}
		if err != nil {
			return nil, err
		}
		out[i] = semantics{fs.Semantics, fs.Reason}
		ta.funcs = fs.Funcs
	}
	return out, nil
}

func writeTopJSON(w io.Writer, l *loaded, order calltree.By, n int, sems []semantics) error {
	p := l.profile
	out := report.Top{Threads: []report.TopThread{}}
	for i, ta := range l.threads {
		tt := report.TopThread{Thread: reportThread(l.thread(ta)), TotalSemantics: sems[i].s.String(), Functions: []report.FunctionRow{}}
		for _, id := range calltree.Top(p, ta.funcs, order, n) {
			f := &ta.funcs[id]
			tt.Functions = append(tt.Functions, report.FunctionRow{Function: reportFunction(p, f), SelfMs: report.Millis(f.Self), TotalMs: report.Millis(f.Total)})
		}
		out.Threads = append(out.Threads, tt)
	}
	return writeJSON(w, out)
}

func writeLines(w io.Writer, l *loaded, n int, asJSON bool) error {
	p := l.profile
	if asJSON {
		out := report.Lines{Threads: []report.LinesThread{}}
		for _, ta := range l.threads {
			lt := report.LinesThread{Thread: reportThread(l.thread(ta)), Lines: []report.LineRow{}}
			for _, ls := range limit(ta.tree.Lines(), n) {
				lt.Lines = append(lt.Lines, report.LineRow{Function: reportFunction(p, &ta.tree.Funcs[ls.Func]),
					SourceLine: ls.Line, Ticks: ls.Ticks, SelfMs: report.Millis(ls.Self)})
			}
			out.Threads = append(out.Threads, lt)
		}
		return writeJSON(w, out)
	}
	for i, ta := range l.threads {
		th := l.thread(ta)
		if i > 0 {
			fmt.Fprintln(w)
		}
		total := ta.tree.TopDown[0].Total
		ls := ta.tree.Lines()
		fmt.Fprintf(w, "thread pid %d tid %d \"%s\": hot source lines\n", th.PID, th.TID, visible(th.Name))
		if len(ls) == 0 {
			fmt.Fprintln(w, "  (no line costs: the profile has no positionTicks and its samples carry no lines; Node writes them with --cpu-prof, Chrome in traces)")
			continue
		}
		ls = limit(ls, n)
		u := unitFor(ls[0].Self)
		fmt.Fprintf(w, "%10s %6s %7s  %s\n", u.header("self"), "self%", "ticks", "line  function")
		for _, x := range ls {
			fmt.Fprintf(w, "%10s %5.1f%% %7d  %-5d %s\n", u.fmt(x.Self), pct(x.Self, total), x.Ticks, x.Line,
				funcLabel(p, &ta.tree.Funcs[x.Func]))
		}
	}
	return nil
}

func limit[T any](s []T, n int) []T {
	if n > 0 && n < len(s) {
		return s[:n]
	}
	return s
}

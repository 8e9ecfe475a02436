package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/compare"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

const diffUsage = `Usage: jsprof diff [-n N] [--by self|total] [--normalize] [--tree] [--json] [--thread SEL] FILE FILE

Compares two profiles, BASE (the first FILE) and NEW (the second): per function (and with --tree per call path) the
self and total time of BASE and NEW, the change in ms, and each side's
share of its own total, largest absolute change of self time first
(--by total: of total time). Functions on one side only are marked added
or removed. The view, range, transforms (--view, --from/--to, --focus,
--merge, --drop, --collapse-recursion), --thread and --total apply to both
sides alike; with several threads a side's times are summed.

Functions are matched by name, URL, line and column (script ids differ
between runs). The same code installed in two places matches: unless
--strip is given, each side's common directory prefix of file URLs is
removed when the two differ; --strip PREFIX (repeatable) removes the first
prefix that matches instead, on both sides.

--normalize scales BASE so that its total equals NEW's before the deltas
are taken (as pprof's -normalize), to compare runs of different lengths.

--format svg writes a differential flame graph to -o OUT: widths from NEW
(--reverse: from BASE, so that vanished paths show), colour from the
change of self time (red more, blue less, grey none; one thread per side).
--format pprof writes the two sides, matched URLs and all, as OUT.base.pb.gz
and OUT.new.pb.gz (from -o OUT.pb.gz) for "go tool pprof -diff_base",
which shows the same per-function deltas.

--json prints {"base","new","totalSemantics","normalized","scale",
"functions":[{"name","url","line","col","status","baseSelfMs","newSelfMs",
"deltaSelfMs",…}],"paths":[{"path":[…],…}]} with every row (-n is for the
text); see the README's JSON contracts.
`

func runDiff(e *env, args []string) error {
	fs := newFlags("diff")
	common := addCommonFlags(fs)
	transform := addTransformFlags(fs)
	n := fs.Int("n", 20, "number of rows; 0 for all")
	by := fs.String("by", "self", "sort by the change of `self` or total time")
	totalSem := fs.String("total", "", "total-time semantics: `devtools`, vscode or xsbug (default: each thread's)")
	normalize := fs.Bool("normalize", false, "scale BASE to NEW's total before comparing")
	var strip listFlag
	fs.Var(&strip, "strip", "remove URL `PREFIX` before matching functions; repeatable (default: each side's common directory, when they differ)")
	paths := fs.Bool("tree", false, "also compare call paths")
	asJSON := fs.Bool("json", false, "print JSON")
	to := fs.String("format", "", "write a differential `FORMAT`: svg (flame graph) or pprof (a pair for go tool pprof -diff_base)")
	out := fs.String("o", "-", "output file (`OUT`) of --format; - for standard output (svg only)")
	reverse := fs.Bool("reverse", false, "svg: widths from BASE, so that vanished paths show")
	names, err := parsePositional(e, fs, diffUsage, args, 2, "BASE and NEW")
	if err != nil {
		return err
	}
	if *by != "self" && *by != "total" {
		return usagef("unknown --by %q; want self or total", *by)
	}
	if *n < 0 {
		return usagef("-n must be ≥ 0")
	}
	if *to != "" && *to != "svg" && *to != "pprof" {
		return usagef("unknown --format %q; want svg or pprof", *to)
	}
	if *to == "pprof" && *out == "-" {
		return usagef("--format pprof writes two files: name them with -o OUT.pb.gz")
	}
	opts := compare.Options{Normalize: *normalize, Paths: *paths}
	if len(strip) > 0 {
		opts.Strip = strip
	}
	if opts.View, err = transform.options(); err != nil {
		return err
	}
	if *totalSem != "" {
		s, err := totals.ParseSemantics(*totalSem)
		if err != nil {
			return usagef("--total: %v", err)
		}
		opts.Semantics = &s
	}
	sides := [2]*loaded{}
	for i, name := range names {
		if sides[i], err = load(e, name, loadOptions{trees: true, common: common, transform: transform}); err != nil {
			return err
		}
	}
	side := func(l *loaded) compare.Side {
		var s compare.Side
		for _, ta := range l.threads {
			s.Threads = append(s.Threads, ta.st)
		}
		return s
	}
	res, err := compare.Diff(e.ctx, side(sides[0]), side(sides[1]), opts)
	if errors.Is(err, session.ErrSemanticsWithView) {
		return usagef("--total %s: %v", *totalSem, err)
	}
	if err != nil {
		return err
	}
	if b, n := semNames(res.Base.Semantics), semNames(res.New.Semantics); b != n {
		fmt.Fprintf(e.stderr, "jsprof: note: the sides' total times follow different semantics (base %s, new %s); --total SEM picks one for both\n", b, n)
	}
	switch *to {
	case "svg":
		return writeDiffSVG(e, sides, res, opts, *out, *reverse)
	case "pprof":
		return writeDiffPprof(e, sides, res, opts, *out)
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	if *asJSON {
		return writeDiffJSON(w, sides, res, opts)
	}
	writeDiffText(w, sides, res, *n, *by == "total")
	return nil
}

func semNames(ss []totals.Semantics) string {
	var out []string
	for _, s := range ss {
		if n := s.String(); len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

func diffFunction(f *compare.Function) report.Function {
	return report.Function{Name: f.Key.Name, URL: f.URL, Line: f.Key.Line, Col: f.Key.Column, Event: f.Key.Event}
}

// diffReport returns the diff's report without its paths (see
// writeDiffJSON).
func diffReport(sides [2]*loaded, res *compare.Result, opts compare.Options) report.Diff {
	mk := func(l *loaded, si compare.SideInfo) report.DiffSide {
		s := report.DiffSide{File: l.name, Threads: []report.Thread{}, TotalMs: report.Millis(si.Total), StripPrefix: si.Prefix}
		for _, ta := range l.threads {
			s.Threads = append(s.Threads, reportThread(l.thread(ta)))
		}
		return s
	}
	out := report.Diff{Base: mk(sides[0], res.Base), New: mk(sides[1], res.New),
		TotalSemantics: semNames(append(res.Base.Semantics, res.New.Semantics...)),
		Normalized:     opts.Normalize, Scale: res.Scale, Functions: []report.DiffRow{}, Paths: []report.DiffPath{}}
	for i := range res.Functions {
		f := &res.Functions[i]
		out.Functions = append(out.Functions, report.DiffRow{Function: diffFunction(f), DiffTimes: compare.ReportTimes(f.Status(), f.Base, f.New, res)})
	}
	return out
}

// writeDiffJSON writes the diff's report.Diff as writeJSON would. A path
// row lists its whole path (the JSON contract), so that the output of deep
// stacks grows with the square of their depth: the rows are streamed, each
// function encoded once, for time in the output's size and memory in one
// path's. The paths, last in the report, go between the encoding of the
// report with none and its end.
func writeDiffJSON(w io.Writer, sides [2]*loaded, res *compare.Result, opts compare.Options) error {
	head, err := json.Marshal(diffReport(sides, res, opts))
	if err != nil {
		return err
	}
	head, ok := bytes.CutSuffix(head, []byte(`"paths":[]}`))
	if !ok {
		return fmt.Errorf("diff JSON: the paths are not the report's last field")
	}
	fns := make([][]byte, len(res.Functions))
	for i := range res.Functions {
		if fns[i], err = json.Marshal(diffFunction(&res.Functions[i])); err != nil {
			return err
		}
	}
	bw := bufio.NewWriter(w)
	bw.Write(head)
	bw.WriteString(`"paths":[`)
	const open = `{"path":[`
	var funcs []int32
	for i := range res.Paths {
		p := &res.Paths[i]
		// {"path":[],"status":…}, the path's functions put between the
		// brackets.
		row, err := json.Marshal(report.DiffPath{Path: []report.Function{}, DiffTimes: compare.ReportTimes(p.Status(), p.Base, p.New, res)})
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(row, []byte(open+"]")) {
			return fmt.Errorf("diff JSON: a path row does not start with its path")
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(open)
		funcs = p.AppendFuncs(funcs[:0])
		for k, fi := range funcs {
			if k > 0 {
				bw.WriteByte(',')
			}
			bw.Write(fns[fi])
		}
		bw.Write(row[len(open):])
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// diffLabel renders a diff row's function as funcLabel does.
func diffLabel(f *compare.Function) string {
	name := f.Key.Name
	if name == "" {
		name = "(anonymous)"
	}
	name = strconv.QuoteToGraphic(name)
	name = name[1 : len(name)-1]
	if f.URL == "" || f.Key.Event {
		return name
	}
	url := strconv.QuoteToGraphic(f.URL)
	url = url[1 : len(url)-1]
	switch {
	case f.Key.Line < 0:
		return name + "  " + url
	case f.Key.Column < 0:
		return fmt.Sprintf("%s  %s:%d", name, url, f.Key.Line+1)
	}
	return fmt.Sprintf("%s  %s:%d:%d", name, url, f.Key.Line+1, f.Key.Column+1)
}

func signed(ms float64) string {
	s := strconv.FormatFloat(ms, 'f', 3, 64)
	if ms >= 0 && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

func writeDiffText(w io.Writer, sides [2]*loaded, res *compare.Result, n int, byTotal bool) {
	bt, nt := res.Base.Total, res.New.Total
	fmt.Fprintf(w, "base %s: %.3f ms", sides[0].name, bt.Millis())
	if res.Base.Prefix != "" {
		fmt.Fprintf(w, " (URLs without %s)", res.Base.Prefix)
	}
	fmt.Fprintf(w, "\nnew  %s: %.3f ms", sides[1].name, nt.Millis())
	if res.New.Prefix != "" {
		fmt.Fprintf(w, " (URLs without %s)", res.New.Prefix)
	}
	if bt > 0 {
		fmt.Fprintf(w, " (%+.1f%%)", 100*float64(nt-bt)/float64(bt))
	}
	fmt.Fprintln(w)
	if res.Scale != 1 {
		fmt.Fprintf(w, "normalized: base times ×%.6g\n", res.Scale)
	}
	fmt.Fprintf(w, "total time: %s\n", semNames(append(res.Base.Semantics, res.New.Semantics...)))
	idx := make([]int, len(res.Functions))
	for i := range idx {
		idx[i] = i
	}
	if byTotal {
		sortByTotal(idx, func(i int) compare.Times { return res.Functions[i].Delta() })
	}
	var counts [4]int
	for i := range res.Functions {
		counts[res.Functions[i].Status()]++
	}
	fmt.Fprintf(w, "%d functions: %d changed, %d added, %d removed, %d same\n", len(res.Functions),
		counts[compare.Changed], counts[compare.Added], counts[compare.Removed], counts[compare.Same])
	baseScaled := profile.Time(float64(bt) * res.Scale)
	fmt.Fprintf(w, "%10s %10s %10s %7s %10s %10s %10s  %s\n", "base self", "new self", "Δ self", "Δ self%", "base total", "new total", "Δ total", "function (ms; Δ% in points of each total)")
	for _, i := range limit(idx, n) {
		f := &res.Functions[i]
		d := f.Delta()
		mark := ""
		switch f.Status() {
		case compare.Added:
			mark = "  [added]"
		case compare.Removed:
			mark = "  [removed]"
		}
		fmt.Fprintf(w, "%10.3f %10.3f %10s %+6.1f%% %10.3f %10.3f %10s  %s%s\n", f.Base.Self.Millis(), f.New.Self.Millis(), signed(d.Self.Millis()),
			compare.Pct(f.New.Self, nt)-compare.Pct(f.Base.Self, baseScaled), f.Base.Total.Millis(), f.New.Total.Millis(), signed(d.Total.Millis()),
			diffLabel(f), mark)
	}
	if len(res.Paths) == 0 {
		return
	}
	pidx := make([]int, len(res.Paths))
	for i := range pidx {
		pidx[i] = i
	}
	if byTotal {
		sortByTotal(pidx, func(i int) compare.Times { return res.Paths[i].Delta() })
	}
	fmt.Fprintf(w, "\ncall paths (%d):\n", len(res.Paths))
	fmt.Fprintf(w, "%10s %10s %10s %10s %10s %10s  %s\n", "base self", "new self", "Δ self", "base total", "new total", "Δ total", "path")
	for _, i := range limit(pidx, n) {
		p := &res.Paths[i]
		d := p.Delta()
		// Long paths keep their innermost functions (--json has them all).
		names := make([]string, min(p.Depth, 5))
		if p.Depth > 5 {
			names = names[:4]
		}
		q := p
		for k := len(names) - 1; k >= 0; k-- {
			names[k] = strings.SplitN(diffLabel(&res.Functions[q.Func]), "  ", 2)[0]
			if q.Parent >= 0 {
				q = &res.Paths[q.Parent]
			}
		}
		if p.Depth > 5 {
			names = append([]string{"…"}, names...)
		}
		mark := ""
		switch p.Status() {
		case compare.Added:
			mark = "  [added]"
		case compare.Removed:
			mark = "  [removed]"
		}
		fmt.Fprintf(w, "%10.3f %10.3f %10s %10.3f %10.3f %10s  %s%s\n", p.Base.Self.Millis(), p.New.Self.Millis(), signed(d.Self.Millis()),
			p.Base.Total.Millis(), p.New.Total.Millis(), signed(d.Total.Millis()), strings.Join(names, " > "), mark)
	}
}

func sortByTotal(idx []int, delta func(int) compare.Times) {
	abs := func(t profile.Time) profile.Time { return max(t, -t) }
	// Stable: ties keep the self-change order.
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(abs(delta(j).Total), abs(delta(i).Total)) })
}

// sideKey returns the svg matching key of a side's frames: the comparison's
// key (compare.FrameKeys), as a string.
func sideKey(keys []compare.Key) func(profile.FrameID) string {
	return func(f profile.FrameID) string {
		k := keys[f]
		return fmt.Sprintf("%q %q %d %d %t", k.Name, k.URL, k.Line, k.Column, k.Event)
	}
}

func writeDiffSVG(e *env, sides [2]*loaded, res *compare.Result, opts compare.Options, out string, reverse bool) error {
	if len(sides[0].threads) != 1 || len(sides[1].threads) != 1 {
		return usagef("a differential flame graph shows one thread of each side: pick one with --thread")
	}
	var ds [2]svg.DiffSide
	var keys [2][]compare.Key
	keys[0], keys[1] = compare.FrameKeys(sides[0].profile, sides[1].profile,
		compare.StripFunc(opts.Strip, res.Base.Prefix), compare.StripFunc(opts.Strip, res.New.Prefix))
	for i, l := range sides {
		ts, err := l.threads[0].st.PathStacks(e.ctx, opts.View)
		if err != nil {
			return err
		}
		ds[i] = svg.DiffSide{Profile: l.profile, Stacks: ts, Key: sideKey(keys[i])}
	}
	title := fmt.Sprintf("%s → %s", filepath.Base(sides[0].name), filepath.Base(sides[1].name))
	return writeOutput(out, e.stdout, true, func(w io.Writer) error {
		return svg.WriteDiff(w, ds[0], ds[1], svg.DiffOptions{Options: svg.Options{Title: title, View: opts.View.View.String()},
			Reverse: reverse, Scale: res.Scale})
	})
}

// diffPairNames returns the names of the pprof pair for -o OUT.
func diffPairNames(out string) (base, new string) {
	stem := out
	for _, ext := range []string{".pb.gz", ".pprof", ".pb", ".gz"} {
		if strings.HasSuffix(stem, ext) {
			stem = strings.TrimSuffix(stem, ext)
			break
		}
	}
	return stem + ".base.pb.gz", stem + ".new.pb.gz"
}

func writeDiffPprof(e *env, sides [2]*loaded, res *compare.Result, opts compare.Options, out string) error {
	names := [2]string{}
	names[0], names[1] = diffPairNames(out)
	prefixes := [2]string{res.Base.Prefix, res.New.Prefix}
	for i, l := range sides {
		stacks, err := threadStacks(e, l, opts.View)
		if err != nil {
			return err
		}
		p := compare.WithURLs(l.profile, compare.StripFunc(opts.Strip, prefixes[i]))
		err = writeOutput(names[i], e.stdout, false, func(w io.Writer) error {
			return pprof.Write(w, p, stacks, pprof.Options{View: opts.View.View.String()})
		})
		if err != nil {
			return err
		}
	}
	norm := ""
	if opts.Normalize {
		norm = "-normalize "
	}
	fmt.Fprintf(e.stderr, "jsprof: wrote %s and %s; compare with: go tool pprof -top %s-diff_base=%s %s\n", names[0], names[1], norm, names[0], names[1])
	return nil
}

package cli

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/pipew"
	"github.com/jsprof/jsprof/profile"
)

// convertUsage is the usage text; the formats come from the one table of
// formats (format.Formats).
var convertUsage = `Usage: jsprof convert --format FORMAT [-o OUT] [--thread SEL] FILE

Converts FILE to another format. FORMAT comes from --format, else from the
name of OUT (the names listed below); a name that says another format than
--format is refused. Without -o, or with -o -, the output goes to standard
output (binary output is not written to a terminal unless -o - is given); an
OUT ending in .gz is gzip-compressed. The writers of analysed views (pprof,
speedscope, firefox, svg, folded) write the thread's time as top and tree
compute it, under --view, --from/--to and the transforms: their self and
total times are those of top. (--to FORMAT and --until MS, the old
spellings, still work, with a note.)

Formats written (FORMAT, then the OUT names that choose it):
` + format.WritersHelp()

func runConvert(e *env, args []string) error {
	fs := newFlags("convert")
	common := addCommonFlags(fs)
	want := format.JoinOr(format.WritableNames())
	formatName := fs.String("format", "", "output `FORMAT`: "+want+" (default: from the name of OUT)")
	transform := addTransformFlags(fs)
	transform.formatTo = true
	out := fs.String("o", "", "output file (`OUT`); - for standard output (the default, but for binary output to a terminal)")
	name, err := parseFlags(e, fs, convertUsage, args)
	if err != nil {
		return err
	}
	for _, n := range transform.notes() {
		fmt.Fprintln(e.stderr, n)
	}
	f, err := outputFormat(*formatName, transform.to.format, *out, want)
	if err != nil {
		return err
	}
	if f.Binary && *out == "" && isTerminal(e.stdout) {
		return usagef("%s output is binary: not writing it to a terminal; name a file with -o, or pass -o - to write to standard output anyway", f.Name)
	}
	if *out == "" {
		*out = "-"
	}
	l, err := load(e, name, loadOptions{common: common, keepArgs: f.Name == "trace"})
	if err != nil {
		return err
	}
	vo, err := transform.options()
	if err != nil {
		return err
	}
	// A format that compresses itself (pprof) gets no second gzip layer.
	return writeOutput(*out, e.stdout, !f.Compresses, func(w io.Writer) error {
		ids := make([]profile.ThreadID, len(l.threads))
		for i, ta := range l.threads {
			ids[i] = ta.id
		}
		switch f.Name {
		case "folded":
			return writeFolded(e, w, l, &vo)
		case "pprof":
			stacks, err := threadStacks(e, l, vo)
			if err != nil {
				return err
			}
			lines, err := lineTables(e, l, vo)
			if err != nil {
				return err
			}
			return pprof.Write(w, l.profile, stacks, pprof.Options{View: vo.View.String(), Lines: lines})
		case "speedscope":
			stacks, err := threadStacks(e, l, vo)
			if err != nil {
				return err
			}
			return speedscope.Write(w, l.profile, stacks, speedscope.Options{Name: filepath.Base(name)})
		case "firefox":
			stacks, err := threadStacks(e, l, vo)
			if err != nil {
				return err
			}
			return firefox.Write(w, l.profile, stacks, firefox.Options{RelevantForJS: view.RelevantForJS})
		case "svg":
			if len(ids) != 1 {
				return usagef("an SVG flame graph shows one thread: pick one with --thread")
			}
			stacks, err := threadStacks(e, l, vo)
			if err != nil {
				return err
			}
			return svg.Write(w, l.profile, stacks[0], svg.Options{Title: name, View: vo.View.String()})
		case "trace":
			if !vo.IsZero() {
				return usagef("a trace is written whole: --view, --from/--until and the transforms apply to folded output")
			}
			return chrometrace.Write(w, l.profile, chrometrace.WriteOptions{Threads: ids})
		}
		return writeCPUProfile(e, w, l, name, &vo)
	})
}

// outputFormat picks the output format from --format (or the deprecated
// --to FORMAT), else from the name of the output file, and refuses a name
// that says another format.
func outputFormat(name, oldName, out, want string) (format.Info, error) {
	byName, named := format.ForOutput(out)
	if name == "" {
		name = oldName
	}
	if name == "" {
		if !named {
			return format.Info{}, usagef("no output format: pass --format FORMAT (%s), or name the output file after one (see -h)", want)
		}
		return byName, nil
	}
	f, ok := format.Lookup(name)
	if !ok || !f.Out {
		return format.Info{}, usagef("unknown --format %q; want %s", name, want)
	}
	if named && byName.Name != f.Name {
		return format.Info{}, usagef("-o %s names the %s format, but --format %s writes %s: name the file *%s", out, byName.Name, f.Name, f.Name, f.Exts[0])
	}
	return f, nil
}

// threadStacks returns each selected thread's stacks under the view, range
// and transforms, as the session computes them: the writers of analysed
// views (pprof, speedscope, Firefox, SVG, folded) write these, so that their
// numbers are those of top and tree. The stacks come without frames: each
// of these writers reads them from the paths (PathStacks), so that a stack
// costs the same whatever its depth.
func threadStacks(e *env, l *loaded, vo view.Options) ([]profile.ThreadStacks, error) {
	out := make([]profile.ThreadStacks, len(l.threads))
	for i, ta := range l.threads {
		ts, err := ta.st.PathStacks(e.ctx, vo)
		if err != nil {
			return nil, err
		}
		out[i] = ts
	}
	return out, nil
}

// lineTables returns each selected thread's per-line self times under the
// view, range and transforms, as `top --lines` computes them, for the pprof
// writer's Locations at source lines.
func lineTables(e *env, l *loaded, vo view.Options) (map[profile.ThreadID][]pprof.LineSelf, error) {
	out := map[profile.ThreadID][]pprof.LineSelf{}
	for _, ta := range l.threads {
		tree, err := ta.st.Tree(e.ctx, vo)
		if err != nil {
			return nil, err
		}
		for _, ls := range tree.Lines() {
			out[ta.id] = append(out[ta.id], pprof.LineSelf{Frame: tree.Funcs[ls.Func].Frame, Line: ls.Line, Self: ls.Self})
		}
	}
	return out, nil
}

// writeFolded writes every selected thread's stacks, folded.
func writeFolded(e *env, w io.Writer, l *loaded, vo *view.Options) error {
	p := l.profile
	fw := folded.NewWriter(p)
	heads := make(map[profile.ThreadID]string)
	for _, ta := range l.threads {
		if len(l.threads) > 1 {
			th := l.thread(ta)
			heads[ta.id] = fmt.Sprintf("%s (pid %d tid %d)", th.Name, th.PID, th.TID)
		}
	}
	all, err := threadStacks(e, l, *vo)
	if err != nil {
		return err
	}
	for _, ts := range all {
		fw.AddThread(heads[ts.Thread], ts)
	}
	_, err = fw.WriteTo(w)
	return err
}

func writeCPUProfile(e *env, w io.Writer, l *loaded, name string, vo *view.Options) error {
	if !vo.IsZero() {
		return usagef("a .cpuprofile is written whole: --view, --from/--to and the transforms apply to folded output")
	}
	if len(l.threads) != 1 {
		var have []string
		for _, ta := range l.threads {
			th := l.thread(ta)
			have = append(have, fmt.Sprintf("%d:%d %q", th.PID, th.TID, th.Name))
		}
		return usagef("a .cpuprofile holds one thread and %s has %d: pick one with --thread (%s)", name, len(l.threads), strings.Join(have, ", "))
	}
	ta := l.threads[0]
	opts := v8.WriteOptions{Thread: ta.id}
	if l.thread(ta).Shape == profile.ShapeCallGraph {
		var removed int
		opts.Edges, removed = totals.RemoveCycles(l.profile, ta.id)
		fmt.Fprintf(e.stderr, "jsprof: call graph: %d back edges removed to make it acyclic (as XS does)\n", removed)
	}
	return v8.Write(w, l.profile, opts)
}

// writeOutput runs write on the named output ("-": stdout), gzip-compressed
// when the name ends in .gz and gz allows it.
func writeOutput(out string, stdout io.Writer, gz bool, write func(io.Writer) error) error {
	var w io.Writer = stdout
	var closers []io.Closer
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		w = f
		closers = append(closers, f)
	}
	if gz && strings.HasSuffix(out, ".gz") {
		// Compressed on the other core while the output is made.
		zw := gzip.NewWriter(w)
		pw := pipew.New(zw)
		w = pw
		closers = append([]io.Closer{pw, zw}, closers...)
	}
	bw := bufio.NewWriter(w)
	err := write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	for _, c := range closers {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

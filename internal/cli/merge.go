package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/merge"
	"github.com/jsprof/jsprof/profile"
)

const mergeUsage = `Usage: jsprof merge --format FORMAT [-o OUT] [--thread SEL] FILE [FILE]

Sums one or more profiles (the same program run many times, or the
workers of one run: Node writes one .cpuprofile per thread) into one, and
writes it. The sum is time-weighted: each input's time (as top and tree
compute it, under --view, --from/--until and the transforms) is added by
call path, so inputs sampled at different intervals add up by time.
Functions are matched by name, URL, line and column; --strip PREFIX
(repeatable) removes a prefix from the URLs first, so that the same code
installed in different places on different hosts merges. --thread selects
the threads of each input (default: all, summed).

Inputs are read two at a time (one per CPU), and memory is bounded by the
merged tree, not by the inputs: thousands of inputs merge in the memory of
one. On a terminal, progress is shown on stderr. An XS call graph does not
merge with V8 call trees (their total times follow other rules): the error
names the two inputs.

FORMAT (from --format, else from OUT's name): pprof, folded, speedscope,
cpuprofile (one synthetic timeline: each call path's summed self time as
one sample), firefox (one thread per input) or svg. -o - (the default)
writes to standard output; an OUT ending in .gz is gzip-compressed.
`

func runMerge(e *env, args []string) error {
	fs := newFlags("merge")
	common := addCommonFlags(fs)
	transform := addTransformFlags(fs)
	to := fs.String("format", "", "output `FORMAT`: pprof, folded, speedscope, cpuprofile, firefox or svg")
	out := fs.String("o", "-", "output file (`OUT`); - for standard output")
	workers := fs.Int("j", 0, "inputs read at once (default: one per CPU)")
	var strip listFlag
	fs.Var(&strip, "strip", "remove URL `PREFIX` from every input's URLs (the same code installed in different places merges); repeatable")
	names, err := parsePositional(e, fs, mergeUsage, args, 0, "one or more FILEs")
	if err != nil {
		return err
	}
	var f format.Info
	var ok bool
	const want = "pprof, folded, speedscope, cpuprofile, firefox or svg"
	if *to == "" {
		if f, ok = format.ForOutput(*out); !ok {
			return usagef("no output format: pass --format FORMAT (%s), or name the output file after one", want)
		}
	} else if f, ok = format.Lookup(*to); !ok || !f.Out {
		return usagef("unknown --format %q; want %s", *to, want)
	}
	switch f.Name {
	case "pprof", "folded", "speedscope", "cpuprofile", "firefox", "svg":
	default:
		return usagef("merge writes %s, not %s", want, f.Name)
	}
	opts := merge.Options{Workers: *workers, PerInput: f.Name == "firefox", Strip: strip}
	if opts.View, err = transform.options(); err != nil {
		return err
	}
	if *common.maxInput != "" {
		n, err := parseSize(*common.maxInput)
		if err != nil {
			return usagef("--max-input: %v", err)
		}
		opts.Session.Read.Input.MaxBytes = n
	}
	opts.Thread = *common.thread
	opts.Session.Integrate.ShowAllEvents = *common.showAllEvents
	opts.Session.Integrate.TraceIDFakeMode = *common.traceIDFake
	term := isTerminal(e.stderr)
	start := time.Now()
	var last time.Time
	if term {
		opts.Progress = func(done, total int) {
			if now := time.Now(); done == total || now.Sub(last) > 100*time.Millisecond {
				last = now
				fmt.Fprintf(e.stderr, "\rjsprof: merged %d/%d inputs", done, total)
			}
		}
	}
	res, err := merge.Merge(e.ctx, names, opts)
	if term && time.Since(start) > 0 {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if err != nil {
		if errors.Is(err, merge.ErrMismatch) {
			return err
		}
		return fmt.Errorf("merge: %w", err)
	}
	p := res.Profile
	stacks := res.Stacks()
	if term {
		var total profile.Time
		for i := range stacks {
			total += res.Total(i)
		}
		fmt.Fprintf(e.stderr, "jsprof: merged %d inputs (%d threads): %.3f ms in %.1f s\n", res.Inputs, res.Threads, total.Millis(), time.Since(start).Seconds())
	}
	return writeOutput(*out, e.stdout, !f.Compresses, func(w io.Writer) error {
		switch f.Name {
		case "pprof":
			return pprof.Write(w, p, stacks, pprof.Options{View: opts.View.View.String()})
		case "speedscope":
			return speedscope.Write(w, p, stacks, speedscope.Options{Name: fmt.Sprintf("merged (%d inputs)", len(names))})
		case "firefox":
			return firefox.Write(w, p, stacks, firefox.Options{RelevantForJS: view.RelevantForJS})
		case "svg":
			return svg.Write(w, p, stacks[0], svg.Options{Title: fmt.Sprintf("%s and %d more, merged", filepath.Base(names[0]), len(names)-1), View: opts.View.View.String()})
		case "folded":
			fw := folded.NewWriter(p)
			for _, ts := range stacks {
				fw.AddThread("", ts)
			}
			_, err := fw.WriteTo(w)
			return err
		}
		return v8.Write(w, p, v8.WriteOptions{Thread: 0})
	})
}

package cli

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/profile"
)

// loaded is an input with its per-thread analyses.
type loaded struct {
	name    string
	size    int64 // bytes of the file as stored (compressed), or −1
	profile *profile.Profile
	threads []*threadAnalysis
}

type threadAnalysis struct {
	id       profile.ThreadID
	timeline *calls.Timeline
	calls    []calls.Call   // trace threads: the integrated calls
	entries  []calls.Entry  // trace threads: flame-chart entries, if requested
	tree     *calltree.Tree // nil unless requested
}

// Calls returns the thread's calls in DevTools' order.
func (ta *threadAnalysis) Calls() []calls.Call {
	if ta.calls != nil || ta.timeline.IsTrace() {
		return ta.calls
	}
	return ta.timeline.Calls()
}

type loadOptions struct {
	trees   bool // build the call trees (and count calls)
	entries bool // keep the flame-chart entries of trace threads
	common  *commonFlags
	// transform is nil for commands without view, range or transform flags.
	transform *transformFlags
	keepArgs  bool // keep trace events' args (to write a trace again)
}

// commonFlags are the flags every analysing command takes.
type commonFlags struct {
	maxInput      *string
	thread        *string
	showAllEvents *bool
	traceIDFake   *bool
}

func addCommonFlags(fs *flag.FlagSet) *commonFlags {
	return &commonFlags{
		maxInput: fs.String("max-input", "", "largest decompressed input to read, e.g. `4G` or 512M (default 64G; gzip that expands over 200× stops unless this is set)"),
		thread:   fs.String("thread", "", "only the threads matching `SEL`: pid:tid, or a thread name (all threads by default)"),
		showAllEvents: fs.Bool("show-all-events", false,
			"keep the \"native V8Runtime\" frames DevTools drops from trace calls, and show every flame-chart entry"),
		traceIDFake: fs.Bool("trace-id-fake-mode", false,
			"use the newer DevTools rule for trace events with a sampleTraceId outside a JS invocation (not in the reference engine)"),
	}
}

// selectThreads returns the threads matching sel: "pid:tid" or a name.
func selectThreads(p *profile.Profile, sel string) ([]profile.ThreadID, error) {
	var out []profile.ThreadID
	if sel == "" {
		for i := range p.Threads {
			out = append(out, profile.ThreadID(i))
		}
		return out, nil
	}
	pid, tid, isPair := strings.Cut(sel, ":")
	for i, th := range p.Threads {
		if isPair && pid == strconv.FormatInt(th.PID, 10) && tid == strconv.FormatInt(th.TID, 10) || th.Name == sel {
			out = append(out, profile.ThreadID(i))
		}
	}
	if len(out) == 0 {
		var have []string
		for _, th := range p.Threads {
			have = append(have, fmt.Sprintf("%d:%d %q", th.PID, th.TID, th.Name))
		}
		return nil, usagef("no thread matches --thread %q; the sampled threads are: %s", sel, strings.Join(have, ", "))
	}
	return out, nil
}

// load reads and parses a file and builds each thread's timeline, showing a
// progress bar on a terminal for slow inputs.
func load(e *env, name string, opts loadOptions) (*loaded, error) {
	l := &loaded{name: name, size: -1}
	if st, err := os.Stat(name); err == nil && name != "-" {
		l.size = st.Size()
	}
	if l.size > 256<<20 {
		// Big inputs: collect sooner. The heap is mostly pointer-free
		// columns, so the extra collections cost little, and peak memory
		// stays near the live data (GOGC 25 is set in main).
		defer debug.SetGCPercent(debug.SetGCPercent(10))
	}
	prog := startProgress(e.stderr, l.size)
	defer prog.stop()
	fo := format.Options{}
	fo.Input.Progress = prog.setRead
	fo.Trace.KeepArgs = opts.keepArgs
	if c := opts.common; c != nil && *c.maxInput != "" {
		n, err := parseSize(*c.maxInput)
		if err != nil {
			return nil, usagef("--max-input: %v", err)
		}
		fo.Input.MaxBytes = n
	}
	p, err := format.ReadFile(name, e.stdin, fo)
	if err != nil {
		return nil, err
	}
	prog.setPhase("analysing")
	l.profile = p
	sel, io := "", calls.IntegrateOptions{}
	if c := opts.common; c != nil {
		sel = *c.thread
		io = calls.IntegrateOptions{ShowAllEvents: *c.showAllEvents, TraceIDFakeMode: *c.traceIDFake}
	}
	ids, err := selectThreads(p, sel)
	if err != nil {
		return nil, err
	}
	vo, err := opts.transform.options()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		tl, err := calls.NewTimeline(p, id)
		if err != nil {
			return nil, fmt.Errorf("%s: thread %d: %w", name, id, err)
		}
		ta := &threadAnalysis{id: id, timeline: tl}
		switch {
		case tl.IsTrace():
			ta.calls, ta.entries = tl.IntegrateEntries(io)
			if !opts.entries {
				ta.entries = nil
			}
		case !vo.IsZero() && !opts.trees:
			ta.calls = tl.Calls()
		}
		if !vo.IsZero() {
			if ta.calls != nil {
				ta.calls = filterCalls(p, tl, ta.calls, &vo)
			}
			if opts.trees {
				// Views and transforms work on the samples' stacks.
				sb := calltree.NewStackBuilder(p, id)
				view.Stacks(tl, vo, func(s view.Stack) { sb.Add(s.Frames, s.Weight) })
				ta.tree = sb.Finish()
			}
		} else if opts.trees && tl.IsTrace() {
			ta.tree = calltree.FromCalls(tl, ta.calls)
		} else if opts.trees {
			ta.tree = calltree.Build(tl)
		}
		l.threads = append(l.threads, ta)
	}
	tls := make([]*calls.Timeline, len(l.threads))
	for i, ta := range l.threads {
		tls[i] = ta.timeline
	}
	category.Assign(p, tls)
	return l, nil
}

func (l *loaded) thread(ta *threadAnalysis) *profile.Thread { return &l.profile.Threads[ta.id] }

// parseSize parses a byte count with an optional K, M, G or T suffix
// (powers of 1024).
func parseSize(s string) (int64, error) {
	mult := int64(1)
	t := strings.TrimSuffix(strings.ToUpper(s), "B")
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult, t = 1<<10, t[:n-1]
		case 'M':
			mult, t = 1<<20, t[:n-1]
		case 'G':
			mult, t = 1<<30, t[:n-1]
		case 'T':
			mult, t = 1<<40, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("want a size such as 512M or 4G, got %q", s)
	}
	return int64(v * float64(mult)), nil
}

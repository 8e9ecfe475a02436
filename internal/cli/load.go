package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/internal/pages"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// loaded is an input's session and the threads a command works on.
type loaded struct {
	name    string
	sess    *session.Session
	profile *profile.Profile // sess.Profile
	threads []*threadAnalysis
}

// threadAnalysis is what a command asked the session for, for one thread.
type threadAnalysis struct {
	id       profile.ThreadID
	st       *session.Thread
	timeline *calls.Timeline
	calls    []calls.Call // the calls in DevTools' order, if requested and held
	// eachCall gives the calls in DevTools' order (after the view and
	// transforms) when they were requested: from calls, or, for a thread
	// whose calls are not held (loadOptions.streamCalls), from walks of
	// the timeline.
	eachCall func(fn func(*calls.Call) error) error
	entries  []calls.Entry  // trace threads: flame-chart entries, if requested
	tree     *calltree.Tree // nil unless requested
	// funcs is the tree's function table under the chosen total-time
	// semantics (the tree's own, or a copy with other totals).
	funcs []calltree.Function
}

type loadOptions struct {
	trees bool // build the call trees
	calls bool // the calls (and, with entries, the flame-chart entries)
	// streamCalls leaves a .cpuprofile thread's calls unheld: eachCall
	// walks the timeline for them (calls.Timeline.EachCall). A trace
	// thread's are held, as its flame-chart entries name them by index.
	streamCalls bool
	entries     bool // keep the flame-chart entries of trace threads
	common      *commonFlags
	// transform is nil for commands without view, range or transform flags.
	transform *transformFlags
	keepArgs  bool // keep trace events' args (to write a trace again)
	// allowEmpty accepts an input without a sampled thread, or whose trees
	// hold no time (summary explains what the file holds; other commands
	// fail with the reason).
	allowEmpty bool
	// alongTrees, unless nil, is called once the session is read; the
	// function it returns is then called with each selected thread while
	// the trees of a trace's threads are built, on the same cores
	// (Session.TreesThen), or after the tree of a lone thread.
	alongTrees func(*session.Session) func(*session.Thread) error
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

// releaseNodes is the size of node table from which load gives the heap's
// free memory back after reading a V8 profile: about where the reader
// gives back its raw table's rest (40 bytes a node past the compacted
// ones, from 1 MB: format/v8).
const releaseNodes = 32 << 10

// longRecording is how many samples a node a V8 profile has from which
// load gives back the executable's pages after reading it.
const longRecording = 16

// releaseTraceBytes is the size of trace from which load has the reader
// give the heap's free memory back once the events are read: about where
// a trace is read on two cores, which buffer megabytes of parsed events
// between them (format/chrometrace).
const releaseTraceBytes = 8 << 20

// load opens name as a session (showing a progress bar on a terminal for
// slow inputs), selects the threads and asks the session for what opts
// requests of each.
func load(e *env, name string, opts loadOptions) (*loaded, error) {
	size := int64(-1)
	if st, err := os.Stat(name); err == nil && name != "-" {
		size = st.Size()
	}
	prog := startProgress(e.stderr, size)
	defer prog.stop()
	prog.phases = e.phases
	prog.phases.mark("reading")
	defer prog.phases.mark("output")
	so := session.Options{Stdin: e.stdin, Progress: prog.setRead, FlameEntries: opts.entries}
	so.Read.Trace.KeepArgs = opts.keepArgs
	if size >= releaseTraceBytes {
		// A large trace's parsed events are garbage once they are read,
		// and the profiles are assembled next: collected and the free
		// memory given back first, the trace peaks lower while reading
		// (docs/performance.md §5p).
		so.Read.Trace.EventsRead = debug.FreeOSMemory
	}
	sel := ""
	if c := opts.common; c != nil {
		if *c.maxInput != "" {
			n, err := parseSize(*c.maxInput)
			if err != nil {
				return nil, usagef("--max-input: %v", err)
			}
			so.Read.Input.MaxBytes = n
		}
		sel = *c.thread
		so.Integrate = calls.IntegrateOptions{ShowAllEvents: *c.showAllEvents, TraceIDFakeMode: *c.traceIDFake}
	}
	vo, err := opts.transform.options()
	if err != nil {
		return nil, err
	}
	s, err := session.Load(e.ctx, name, so)
	if err != nil {
		return nil, err
	}
	prog.setPhase("analysing")
	switch s.Profile.Format {
	case "cpuprofile", "cpuprofile-legacy", "xs":
		if s.Profile.Samples.Node.Len() >= longRecording*len(s.Profile.Nodes) {
			// A long recording (far more samples than nodes) peaks at its
			// end too: the analyses add to the samples read, which nothing
			// frees. Its reader's code is done with, as after a trace
			// (docs/performance.md §5r).
			pages.ReleaseExecutable()
		}
		if len(s.Profile.Nodes) < releaseNodes {
			break // the collection and release cost more than they give back (a 20 k-node chain: +5%)
		}
		// The V8 reader's tables are garbage now, and the pages it gave
		// back of them while building (its raw nodes') would be faulted
		// in again wherever the trees' arrays land on them, while the
		// rest stayed resident unused: collected now and the free memory
		// given back, the trees take fresh pages only for what they hold,
		// and the process peaks at the larger of the two phases, not near
		// their sum (docs/performance.md §5i: many-nodes' peak −17%,
		// typescript's −10%, for 10% and 5% of their time). On a goroutine,
		// so that the collection and the release run on the other core,
		// idle then, while this one makes the timeline (§5l: typescript
		// −4.0%, large-profile −3.0 to −3.8%, the peak unchanged).
		go debug.FreeOSMemory()
	case "chrome-trace":
		// A trace peaks at its end, in its trees and output, and its
		// reader's code is done with: given back, the analyses map again
		// only what they run (docs/performance.md §5m: −0.5 to −0.9 MB; a
		// .cpuprofile, which peaks while reading, gains nothing for +1–5%
		// of its time).
		pages.ReleaseExecutable()
		// The reader's store of events is garbage now, and the trees grow
		// the heap from whatever the last collection left live: where it
		// fell while the store was still held, they grew it to a goal of
		// 13 MB instead of 12 (nytimes-bad-mobile-viewport). A collection
		// now, on the other core while this one makes the timeline, starts
		// them from what is live (§5z: nytimes −10.6% peak, wrong-main
		// −2.5%, about 1 ms of the other core; given back to the system as
		// well, +4.8% time).
		go runtime.GC()
	}
	l := &loaded{name: name, sess: s, profile: s.Profile}
	ths, err := s.Select(sel)
	if err != nil {
		var se *session.SelectError
		if errors.As(err, &se) {
			return nil, usagef("--thread: %v", err)
		}
		return nil, err
	}
	if err := view.Resolve(l.profile, &vo); err != nil {
		return nil, err // a *view.NoMatchError: exit 1 with the closest names
	}
	if len(ths) == 0 && !opts.allowEmpty {
		return nil, noThreads(name, l.profile)
	}
	ctx := e.ctx
	var along func(*session.Thread) error
	if opts.trees && opts.alongTrees != nil {
		along = opts.alongTrees(s)
	}
	if opts.trees && len(ths) > 1 {
		// A trace's threads in parallel (the loop below then finds them
		// cached).
		prog.setPhase(fmt.Sprintf("trees of %d threads", len(ths)))
		if _, err := s.TreesThen(ctx, ths, vo, along); err != nil {
			return nil, err
		}
	}
	for i, st := range ths {
		ta := &threadAnalysis{id: st.ID, st: st}
		phase := func(what string) {
			prog.setPhase(fmt.Sprintf("thread %d of %d (%s): %s", i+1, len(ths), visible(st.Info().Name), what))
		}
		phase("timeline")
		if ta.timeline, err = st.Timeline(ctx); err != nil {
			return nil, err
		}
		if opts.calls || opts.entries {
			phase("calls")
			var from, to, origin profile.Time
			if !vo.IsZero() {
				if from, to, err = st.Window(ctx); err != nil {
					return nil, err
				}
				if origin, err = st.Origin(ctx); err != nil {
					return nil, err
				}
			}
			if opts.streamCalls && !st.IsTrace() {
				tl := ta.timeline
				ta.eachCall = func(fn func(*calls.Call) error) error {
					if vo.IsZero() {
						return tl.EachCall(fn)
					}
					keep := view.NewCallFilter(l.profile, from, to, origin, &vo)
					return tl.EachCall(func(c *calls.Call) error {
						if !keep.Keep(c) {
							return nil
						}
						return fn(c)
					})
				}
			} else {
				if ta.calls, err = st.Calls(ctx); err != nil {
					return nil, err
				}
				ta.calls = view.Calls(l.profile, ta.calls, from, to, origin, &vo)
				held := ta.calls
				ta.eachCall = func(fn func(*calls.Call) error) error {
					for i := range held {
						if err := fn(&held[i]); err != nil {
							return err
						}
					}
					return nil
				}
			}
		}
		if opts.entries {
			if ta.entries, err = st.FlameEntries(ctx); err != nil {
				return nil, err
			}
		}
		if opts.trees {
			phase("trees")
			// What is computed along a lone trace thread's tree (summary's
			// DevTools Summary) runs on the other core: both start from the
			// thread's calls, made once, then the tree and the Summary are
			// made at once (the typescript shape as a trace: 48 and 42 ms;
			// docs/performance.md §5s).
			alongDone := make(chan error, 1)
			lone := along != nil && len(ths) == 1
			beside := lone && st.IsTrace()
			switch {
			case beside:
				go func() { alongDone <- along(st) }()
			case lone:
				alongDone <- along(st)
			default:
				alongDone <- nil
			}
			ta.tree, err = st.Tree(ctx, vo)
			if beside && err == nil {
				// The tree is done first (nytimes-bad-mobile-viewport: 4
				// ms against the Summary's 9): this core gives the samples
				// their categories meanwhile, which the categories phase
				// below did after both, on one core (1.7 ms; §5x).
				err = s.Categories(ctx)
			}
			if aerr := <-alongDone; err == nil {
				err = aerr
			}
			if err != nil {
				return nil, err
			}
		}
		l.threads = append(l.threads, ta)
	}
	prog.setPhase("categories")
	if err := s.Categories(ctx); err != nil {
		return nil, err
	}
	if opts.trees && len(l.threads) > 0 && !opts.allowEmpty {
		empty := true
		for _, ta := range l.threads {
			root := &ta.tree.TopDown[0]
			empty = empty && root.Total-root.Self == 0 // no function has time
		}
		if empty {
			return nil, emptyTrees(l, &vo)
		}
	}
	return l, nil
}

// noThreads explains an input without a sampled thread.
func noThreads(name string, p *profile.Profile) error {
	hint := "it holds no CPU samples"
	switch {
	case p.Format == "chrome-trace" && len(p.Events) == 0 && len(p.Diagnostics) == 0:
		hint = "the trace holds no events at all"
	case p.Format == "chrome-trace":
		hint = "it has no Profile/ProfileChunk events: record Node with --cpu-prof as well as --trace-events-enabled, " +
			"or Chrome with the disabled-by-default-v8.cpu_profiler category (DevTools' Performance panel does)"
	}
	return fmt.Errorf("%s: no thread with CPU samples to show: %s", name, hint)
}

// emptyTrees explains trees that hold no time: a range past the end, or
// transforms that leave nothing.
func emptyTrees(l *loaded, vo *view.Options) error {
	what := "the transforms leave no time"
	switch {
	case vo.IsZero():
		what = "the samples cover no time (see jsprof summary for what the file holds)"
	case vo.From != 0 || vo.To != 0:
		var span profile.Time
		for _, ta := range l.threads {
			if tl := ta.timeline; tl.Times.Len() > 0 {
				span = max(span, tl.End-tl.Times.At(0))
			}
		}
		what = fmt.Sprintf("the range %s–%s holds no time (the samples span 0–%s from the first)",
			duration(vo.From), duration(vo.To), duration(span))
		if vo.To == 0 {
			what = fmt.Sprintf("the range from %s holds no time (the samples span 0–%s from the first)", duration(vo.From), duration(span))
		}
	case vo.View != view.All && len(vo.Focus)+len(vo.Drop)+len(vo.Merge) == 0:
		what = fmt.Sprintf("the %s view leaves no time", vo.View)
	}
	return fmt.Errorf("%s: nothing to show: %s", l.name, what)
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

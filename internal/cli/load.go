package cli

import (
	"fmt"
	"os"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
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
	trees bool // build the call trees (and count calls)
}

// load reads and parses a file and builds each thread's timeline, showing a
// progress bar on a terminal for slow inputs.
func load(e *env, name string, opts loadOptions) (*loaded, error) {
	l := &loaded{name: name, size: -1}
	if st, err := os.Stat(name); err == nil && name != "-" {
		l.size = st.Size()
	}
	prog := startProgress(e.stderr, l.size)
	defer prog.stop()
	fo := format.Options{}
	fo.Input.Progress = prog.setRead
	p, err := format.ReadFile(name, e.stdin, fo)
	if err != nil {
		return nil, err
	}
	prog.setPhase("analysing")
	l.profile = p
	for i := range p.Threads {
		tl, err := calls.NewTimeline(p, profile.ThreadID(i))
		if err != nil {
			return nil, fmt.Errorf("%s: thread %d: %w", name, i, err)
		}
		ta := &threadAnalysis{id: profile.ThreadID(i), timeline: tl}
		if tl.IsTrace() {
			ta.calls = tl.Integrate(calls.IntegrateOptions{})
			if opts.trees {
				ta.tree = calltree.FromCalls(tl, ta.calls)
			}
		} else if opts.trees {
			ta.tree = calltree.Build(tl)
		}
		l.threads = append(l.threads, ta)
	}
	return l, nil
}

func (l *loaded) thread(ta *threadAnalysis) *profile.Thread { return &l.profile.Threads[ta.id] }

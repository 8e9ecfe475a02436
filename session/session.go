// Package session is jsprof's analysis session: one loaded profile and, per
// thread, the results every output is built from, computed when first asked
// for and then cached. The CLI, the viewer's server, diff and merge all read
// a profile through a Session, so that they show the same numbers.
//
// One thread time everywhere: a thread's trees are DevTools' Call Tree and
// Bottom-Up trees (docs/devtools-engine.md §7) over its entries (the JS
// calls, and for a trace the trace events with them), and every view,
// range and transform is computed from those trees. A transform that
// changes nothing gives the same numbers as none.
//
// A Session is safe for concurrent use. The profile the reader returned is
// never written: the session works on a shallow copy that adds a frame for
// each trace event name (profile.KindEvent) and keeps its own per-sample
// categories.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/profile"
)

// Options controls Load. The zero value reads with default limits.
type Options struct {
	// Read holds the reader options (input limits, trace options).
	Read format.Options
	// Stdin is read when the name is "-".
	Stdin io.Reader
	// Integrate holds the DevTools options of the trace path.
	Integrate calls.IntegrateOptions
	// Progress, if not nil, is called now and then while reading with the
	// bytes read from the file so far.
	Progress func(read int64)
	// EventThreads keeps a trace's threads without a CPU profile with
	// their trace events (Session.EventThreads), for drawing them. No
	// analysis uses them; the profile is the same either way.
	EventThreads bool
	// FlameEntries computes a trace thread's flame-chart entries in the
	// same pass as its calls: set it when Thread.FlameEntries will be asked
	// for (the viewer). Unset, a command that needs only the calls (a
	// summary) does not hold them, and FlameEntries runs that pass again.
	FlameEntries bool
}

// Session is a loaded profile and its per-thread analyses.
type Session struct {
	// Name is the input's name ("-" for standard input).
	Name string
	// Size is the size of the input as stored (compressed), or −1.
	Size int64
	// Profile is the profile with a frame for each trace event name. It
	// must not be modified.
	Profile *profile.Profile

	opts       Options
	threads    []*Thread
	evThreads  []chrometrace.EventThread
	eventFrame map[profile.StringID]profile.FrameID

	cats lazy[struct{}] // Categories, once
}

// Load reads the named file ("-": opts.Stdin) and returns its session.
// Analyses run later, when asked for. ctx cancels the read.
func Load(ctx context.Context, name string, opts Options) (*Session, error) {
	size := int64(-1)
	if name != "-" {
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	ro := opts.Read
	ro.Input.Context = ctx
	if opts.Progress != nil {
		ro.Input.Progress = opts.Progress
	}
	var ets []chrometrace.EventThread
	if opts.EventThreads {
		ro.Trace.Unsampled = &ets
	}
	p, err := format.ReadFile(name, opts.Stdin, ro)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	s := New(name, p, opts)
	s.Size = size
	s.evThreads = ets
	return s, nil
}

// EventThreads returns the trace's threads without a CPU profile and their
// events when Options.EventThreads asked for them (Load only), else nil.
// Their events' names index Profile.Strings. The slice must not be
// modified.
func (s *Session) EventThreads() []chrometrace.EventThread { return s.evThreads }

// New returns the session of a profile already read; p is not modified.
func New(name string, p *profile.Profile, opts Options) *Session {
	s := &Session{Name: name, Size: -1, opts: opts}
	s.Profile, s.eventFrame = withEventFrames(p)
	s.threads = make([]*Thread, len(p.Threads))
	for i := range p.Threads {
		s.threads[i] = &Thread{s: s, ID: profile.ThreadID(i)}
	}
	return s
}

// withEventFrames returns a shallow copy of p whose frame table also holds
// one frame per trace event name (kind profile.KindEvent, categorised by
// jsprof's rules), and the frame of each name.
func withEventFrames(p *profile.Profile) (*profile.Profile, map[profile.StringID]profile.FrameID) {
	q := *p
	q.Frames = slices.Clip(p.Frames)
	frames := map[profile.StringID]profile.FrameID{}
	for _, e := range p.Events {
		if _, ok := frames[e.Name]; ok {
			continue
		}
		c, _, ok := category.Event(p, p.Str(e.Name))
		if !ok {
			c = profile.CatOther
		}
		frames[e.Name] = profile.FrameID(len(q.Frames))
		q.Frames = append(q.Frames, profile.Frame{Name: e.Name, Line: -1, Column: -1, Kind: profile.KindEvent, Category: c})
	}
	return &q, frames
}

// Threads returns every thread of the profile, in the profile's order.
func (s *Session) Threads() []*Thread { return s.threads }

// Select returns the threads matching sel: "pid:tid", a thread name, or
// part of the URL of the page a trace thread's process showed (when no
// thread has that name); "" selects every thread.
func (s *Session) Select(sel string) ([]*Thread, error) {
	if sel == "" {
		return s.threads, nil
	}
	p := s.Profile
	var out []*Thread
	pid, tid, isPair := strings.Cut(sel, ":")
	for i, th := range p.Threads {
		if isPair && pid == strconv.FormatInt(th.PID, 10) && tid == strconv.FormatInt(th.TID, 10) || th.Name == sel {
			out = append(out, s.threads[i])
		}
	}
	if len(out) == 0 && !isPair {
		for i, th := range p.Threads {
			if th.URL != "" && strings.Contains(th.URL, sel) {
				out = append(out, s.threads[i])
			}
		}
	}
	if len(out) == 0 {
		var have []string
		for _, th := range p.Threads {
			d := fmt.Sprintf("%d:%d %q", th.PID, th.TID, th.Name)
			if th.URL != "" {
				d += " (" + th.URL + ")"
			}
			have = append(have, d)
		}
		return nil, &SelectError{Sel: sel, Have: have}
	}
	return out, nil
}

// SelectError reports a thread selection that matches no thread.
type SelectError struct {
	Sel  string
	Have []string // the threads, as "pid:tid \"name\""
}

func (e *SelectError) Error() string {
	have := e.Have
	more := ""
	if len(have) > maxListed {
		// A trace of thousands of threads made an error line of as many.
		have, more = have[:maxListed], fmt.Sprintf(" and %d more (jsprof summary FILE lists them all)", len(have)-maxListed)
	}
	return fmt.Sprintf("no thread matches %q; the sampled threads are: %s%s", e.Sel, strings.Join(have, ", "), more)
}

// maxListed is the number of threads a SelectError names.
const maxListed = 20

// lazy is a value computed once, when first asked for. An error caused by
// a cancelled context is not kept: the next caller computes again.
type lazy[T any] struct {
	mu   sync.Mutex
	done bool
	v    T
	err  error
}

// peek returns the value if it was computed without error.
func (l *lazy[T]) peek() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v, l.done && l.err == nil
}

func (l *lazy[T]) get(ctx context.Context, compute func() (T, error)) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return l.v, l.err
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	v, err := compute()
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return v, err
	}
	l.v, l.err, l.done = v, err, true
	return v, err
}

package server

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// Event threads are a trace's threads without a CPU profile (compositor,
// raster, GPU, workers that were not profiled; session.Options.EventThreads).
// The page draws each as a track of its trace events, nested by time as
// DevTools' trace-event tree nests them, on the time axis of the shown
// thread, answered per viewport like the flame chart.

// EventThreadInfo is one event thread of /api/info: Index is the e= of
// /api/events and /api/event.
type EventThreadInfo struct {
	report.Thread
	Index       int    `json:"index"`
	ProcessName string `json:"processName"`
	URL         string `json:"url,omitempty"`
	Events      int    `json:"events"`
}

// EventTrackBoxes is one track of /api/events: the boxes of event thread
// Index, as /api/flame's (ids index its entries, for /api/event).
type EventTrackBoxes struct {
	Index int `json:"index"`
	report.FlameBoxes
}

// EventBoxes answers /api/events.
type EventBoxes struct {
	Tracks []EventTrackBoxes `json:"tracks"`
}

// EventEntry answers /api/event: an entry of an event thread's track, with
// the trace event's own category string (its "cat").
type EventEntry struct {
	report.FlameEntry
	TraceCat string `json:"traceCat"`
}

// eventIndexes holds the flame indexes of the event threads, each built
// when first asked for.
type eventIndexes struct {
	mu  sync.Mutex
	idx map[int]*eventIndex
}

type eventIndex struct {
	once sync.Once
	fx   *flameIndex
	err  error
}

func (s *server) eventFlame(ctx context.Context, sess *session.Session, e int) (*flameIndex, error) {
	s.events.mu.Lock()
	if s.events.idx == nil {
		s.events.idx = map[int]*eventIndex{}
	}
	x, ok := s.events.idx[e]
	if !ok {
		x = &eventIndex{}
		s.events.idx[e] = x
	}
	s.events.mu.Unlock()
	x.once.Do(func() {
		x.fx, x.err = buildEventFlame(context.WithoutCancel(ctx), sess.Profile, &sess.EventThreads()[e])
	})
	return x.fx, x.err
}

// buildEventFlame indexes an event thread's track: its events nested as
// DevTools' treify nests them (an event starting at or after the end of
// the open one closes it; one that starts inside it and ends after it is
// left out of the tree, as DevTools leaves it out of the flame chart), each
// at the depth of its parent plus one. Every event is shown (what
// --show-all-events shows on a sampled thread): these threads have no JS
// to attribute their time to, and their tasks (RunTask) are their story.
func buildEventFlame(ctx context.Context, p *profile.Profile, et *chrometrace.EventThread) (*flameIndex, error) {
	fx := &flameIndex{p: p, ev: et.Events, evCat: map[profile.StringID]uint8{}}
	type open struct {
		end   profile.Time
		level int32
	}
	var stack []open
	fx.es = make([]calls.Entry, 0, len(et.Events))
	for i := range et.Events {
		e := &et.Events[i]
		for len(stack) > 0 && e.Start >= stack[len(stack)-1].end {
			stack = stack[:len(stack)-1]
		}
		level := int32(0)
		if len(stack) > 0 {
			par := stack[len(stack)-1]
			if e.End() > par.end {
				continue
			}
			level = par.level + 1
		}
		stack = append(stack, open{e.End(), level})
		fx.es = append(fx.es, calls.Entry{Level: level, Event: int32(i), Call: -1, Start: e.Start, Dur: e.Dur})
		if _, ok := fx.evCat[e.Name]; !ok {
			c, _, found := category.Event(p, p.Str(e.Name))
			if !found {
				c = profile.CatOther
			}
			fx.evCat[e.Name] = uint8(c)
		}
	}
	if err := fx.index(ctx); err != nil {
		return nil, err
	}
	return fx, nil
}

// eventThread returns the event thread of e=.
func (q *request) eventThread() (int, error) {
	n := len(q.sess.EventThreads())
	if n == 0 {
		return 0, badf("the profile has no thread without samples")
	}
	return q.int("e", -1, 0, n-1)
}

// eventThreadsInfo lists the event threads for /api/info.
func eventThreadsInfo(sess *session.Session) []EventThreadInfo {
	out := []EventThreadInfo{}
	for i, et := range sess.EventThreads() {
		out = append(out, EventThreadInfo{Thread: report.Thread{PID: et.PID, TID: et.TID, Name: et.Name}, Index: i,
			ProcessName: et.ProcessName, URL: et.URL, Events: len(et.Events)})
	}
	return out
}

// eventBoxes answers /api/events: for the window of thread t= (from=, to=,
// width=, as /api/flame), the boxes of the event threads e= (a
// comma-separated list; default every one).
func (s *server) eventBoxes(q *request) (any, error) {
	th, err := q.thread()
	if err != nil {
		return nil, err
	}
	from, to, origin, width, err := q.window(th)
	if err != nil {
		return nil, err
	}
	ets := q.sess.EventThreads()
	var which []int
	if v := q.get("e"); v != "" {
		for _, f := range strings.Split(v, ",") {
			k, err := strconv.Atoi(f)
			if err != nil || k < 0 || k >= len(ets) {
				return nil, badf("e=%q: want event thread indexes from 0 to %d", v, len(ets)-1)
			}
			which = append(which, k)
		}
	} else {
		for k := range ets {
			which = append(which, k)
		}
	}
	out := EventBoxes{Tracks: []EventTrackBoxes{}}
	for _, k := range which {
		fx, err := s.eventFlame(q.ctx, q.sess, k)
		if err != nil {
			return nil, err
		}
		out.Tracks = append(out.Tracks, EventTrackBoxes{Index: k, FlameBoxes: fx.boxes(from, to, origin, width)})
	}
	return out, nil
}

// eventEntry answers /api/event: entry id= of event thread e=, its times
// from the origin of thread t=.
func (s *server) eventEntry(q *request) (any, error) {
	th, err := q.thread()
	if err != nil {
		return nil, err
	}
	k, err := q.eventThread()
	if err != nil {
		return nil, err
	}
	fx, err := s.eventFlame(q.ctx, q.sess, k)
	if err != nil {
		return nil, err
	}
	fe, err := flameEntry(q, th, fx)
	if err != nil {
		return nil, err
	}
	p := q.sess.Profile
	ev := &fx.ev[fx.es[fe.ID].Event]
	fe.Function = report.Function{Name: p.Str(ev.Name), Line: -1, Col: -1, Event: true}
	fe.Name = p.Str(ev.Name)
	return EventEntry{FlameEntry: fe, TraceCat: p.Str(ev.Cat)}, nil
}

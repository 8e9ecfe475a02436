package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/internal/server"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// loadEvents loads a file as jsprof view does, with its event threads.
func loadEvents(t testing.TB, path string) *session.Session {
	t.Helper()
	s, err := session.Load(context.Background(), path, session.Options{EventThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eventEntries is the track of event thread k as the test reads the
// reader's events: nested as DevTools' treify nests them (an event
// overlapping the end of the open one is left out), times from the origin
// of thread ti. The index of an entry is its id in the server's answers.
func eventEntries(t *testing.T, sess *session.Session, ti, k int) []entry {
	t.Helper()
	origin, err := sess.Threads()[ti].Origin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := sess.Profile
	var out []entry
	type open struct {
		end   int64
		level int32
	}
	var stack []open
	for _, e := range sess.EventThreads()[k].Events {
		s, end := int64(e.Start), int64(e.End())
		for len(stack) > 0 && s >= stack[len(stack)-1].end {
			stack = stack[:len(stack)-1]
		}
		level := int32(0)
		if n := len(stack); n > 0 {
			if end > stack[n-1].end {
				continue
			}
			level = stack[n-1].level + 1
		}
		stack = append(stack, open{end, level})
		out = append(out, entry{level, s - int64(origin), int64(e.Dur), p.Str(e.Name)})
	}
	return out
}

// The event threads of a trace (threads without samples) are listed by
// /api/info and drawn per viewport by /api/events: every event of the
// reader in the window is a box or in a merged one, on the time axis of
// the shown thread; /api/event details one.
func TestEventThreads(t *testing.T) {
	t.Parallel()
	file := proftest.Corpus(t, "devtools/threejs-gpu.json.gz")
	sess := loadEvents(t, file)
	h := server.New(sess, server.Options{})
	var info struct {
		report.ViewerInfo
		EventThreads []server.EventThreadInfo `json:"eventThreads"`
	}
	get(t, h, "/api/info", &info)
	ets := sess.EventThreads()
	if len(info.EventThreads) != len(ets) || len(ets) < 5 {
		t.Fatalf("got %d event threads in /api/info, want the session's %d (several)", len(info.EventThreads), len(ets))
	}
	names := map[string]bool{}
	for i, et := range info.EventThreads {
		if et.Index != i || et.Events != len(ets[i].Events) || et.Name != ets[i].Name || et.PID != ets[i].PID || et.TID != ets[i].TID {
			t.Errorf("event thread %d: got %+v, want %s with %d events", i, et, ets[i].Name, len(ets[i].Events))
		}
		names[et.ProcessName+" / "+et.Name] = true
	}
	for _, n := range []string{"Renderer / Compositor", "GPU Process / CrGpuMain", "GPU Process / VizCompositorThread", "Renderer / ThreadPoolForegroundWorker"} {
		if !names[n] {
			t.Errorf("no event thread %q in %v", n, names)
		}
	}
	ti := info.Default
	th := info.Threads[ti]
	// Windows in ns from the thread's origin (µs in the requests).
	from0, span := int64(th.FromUs), int64(th.ToUs-th.FromUs)
	windows := []struct{ from, to, width int64 }{
		{from0, from0 + span, 800},
		{from0 + span/3, from0 + span/3 + span/50, 1200},
		{from0 + span/2, from0 + span/2 + 2_000_000, 600},
	}
	total := 0
	for _, w := range windows {
		var eb server.EventBoxes
		get(t, h, fmt.Sprintf("/api/events?t=%d&from=%d&to=%d&width=%d", ti, w.from/1000, w.to/1000, w.width), &eb)
		if len(eb.Tracks) != len(ets) {
			t.Fatalf("got %d tracks, want %d", len(eb.Tracks), len(ets))
		}
		for k, tb := range eb.Tracks {
			want := eventEntries(t, sess, ti, k)
			checkBoxes(t, fmt.Sprintf("%s window %d-%d", ets[k].Name, w.from, w.to), tb.FlameBoxes, want, w.from/1000*1000, w.to/1000*1000, w.width)
			total += len(tb.ID)
		}
	}
	if total == 0 {
		t.Error("no box in any window")
	}
	// One track by e=, and an entry's details.
	var eb server.EventBoxes
	get(t, h, fmt.Sprintf("/api/events?t=%d&e=1&width=500", ti), &eb)
	if len(eb.Tracks) != 1 || eb.Tracks[0].Index != 1 {
		t.Fatalf("e=1: got %d tracks", len(eb.Tracks))
	}
	want := eventEntries(t, sess, ti, 1)
	var en server.EventEntry
	get(t, h, fmt.Sprintf("/api/event?t=%d&e=1&id=0", ti), &en)
	if en.Name != want[0].name || int64(en.StartUs) != want[0].start || int64(en.DurUs) != want[0].dur || !en.Event || en.TraceCat == "" || en.Category == "" {
		t.Errorf("got entry %+v, want %+v", en, want[0])
	}
	for _, path := range []string{"/api/event?e=99&id=0", "/api/event?e=1&id=99999999", "/api/events?e=x"} {
		if code := status(t, h, path); code != 400 {
			t.Errorf("GET %s: got %d, want 400", path, code)
		}
	}
	// Without the option, no event threads.
	plain := server.New(load(t, file), server.Options{})
	get(t, plain, "/api/info", &info)
	if len(info.EventThreads) != 0 {
		t.Errorf("without session.Options.EventThreads: got %d event threads", len(info.EventThreads))
	}
}

// status returns the status code of GET path.
func status(t *testing.T, h http.Handler, path string) int {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Host = "127.0.0.1:1234"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// eventTrack is what the page's __jsprof.eventsDrawn() reports per track.
type eventTrack struct {
	Index int        `json:"index"`
	Name  string     `json:"name"`
	Boxes []drawnBox `json:"boxes"`
}

// checkEventsDrawn compares the boxes of every event track the page drew
// with the reader's events of that thread in the page's window: each box
// is the event of its id (name, level, start and duration), and every
// event at least a pixel wide in the window and within the drawn levels
// is drawn.
func (v *viewer) checkEventsDrawn(ti int) (tracks, boxes int) {
	v.t.Helper()
	var drawn []eventTrack
	v.eval(`window.__jsprof.eventsDrawn()`, &drawn)
	var win struct{ From, To float64 }
	v.eval(`window.__jsprof.window()`, &win)
	var width float64
	v.eval(`document.getElementById('flame-scroll').clientWidth`, &width)
	from, to := int64(win.From*1e3), int64(win.To*1e3)
	px := float64(to-from) / width
	if len(drawn) != len(v.sess.EventThreads()) {
		v.t.Fatalf("got %d event tracks, want %d", len(drawn), len(v.sess.EventThreads()))
	}
	for _, tr := range drawn {
		want := eventEntries(v.t, v.sess, ti, tr.Index)
		got := map[int32]bool{}
		for _, d := range tr.Boxes {
			if d.ID < 0 {
				continue
			}
			e := want[d.ID]
			if e.level != d.Level || fmt.Sprintf("%.3f", float64(e.start)/1e3) != fmt.Sprintf("%.3f", d.Start) ||
				fmt.Sprintf("%.3f", float64(e.dur)/1e3) != fmt.Sprintf("%.3f", d.Dur) || d.Name == nil || *d.Name != e.name {
				v.t.Fatalf("track %s: drawn box %+v is not event %d %+v", tr.Name, d, d.ID, e)
			}
			got[d.ID] = true
		}
		for id, e := range want {
			if e.start+e.dur <= from || e.start >= to || float64(e.dur) < 1.01*px || e.level >= 16 {
				continue
			}
			if !got[int32(id)] {
				v.t.Errorf("track %s: event %d %+v (%.1f px) in the window is not drawn", tr.Name, id, e, float64(e.dur)/px)
			}
		}
		if len(tr.Boxes) > 0 {
			tracks++
		}
		boxes += len(got)
	}
	return tracks, boxes
}

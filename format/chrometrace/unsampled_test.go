package chrometrace_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// Options.Unsampled keeps the events of the threads without a CPU profile
// beside the profile, which stays the same (but for the diagnostic's
// words), and loses none of the events the option-less reader drops.
func TestUnsampledMini(t *testing.T) {
	var ets []chrometrace.EventThread
	on, err := chrometrace.Parse(strings.NewReader(miniTrace), chrometrace.Options{Unsampled: &ets})
	if err != nil {
		t.Fatal(err)
	}
	if len(ets) != 1 {
		t.Fatalf("got %d event threads, want 1: %+v", len(ets), ets)
	}
	et := ets[0]
	if et.PID != 1 || et.TID != 3 || len(et.Events) != 1 {
		t.Fatalf("got %+v, want pid 1 tid 3 with one event", et)
	}
	e := et.Events[0]
	if on.Str(e.Name) != "Other" || on.Str(e.Cat) != "t" || e.Start != profile.TimeFromMicros(1006) || e.Dur != 3000 || e.Phase != 'X' || e.Thread != 0 {
		t.Errorf("got event %+v, want Other at 1006 µs for 3 µs", e)
	}
	if got := on.Diagnostics.Count("events-other-threads"); got != 1 {
		t.Errorf("events-other-threads: got %d, want 1", got)
	}
}

// On corpus traces with threads that have no profile (GPU, compositor,
// workers), every X, I and B event of such a thread in the input is kept
// on its event thread, the sampled threads are untouched, and the events
// of each thread are sorted.
func TestUnsampledCorpus(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"threejs-gpu.json.gz", "two-workers.json.gz"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := proftest.Corpus(t, "devtools/"+name)
			data := gunzip(t, path)
			off, err := chrometrace.Parse(bytes.NewReader(data), chrometrace.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var ets []chrometrace.EventThread
			on, err := chrometrace.Parse(bytes.NewReader(data), chrometrace.Options{Unsampled: &ets})
			if err != nil {
				t.Fatal(err)
			}
			if err := on.Validate(); err != nil {
				t.Fatal(err)
			}
			// The profile is the same, diagnostics aside.
			dropped := off.Diagnostics.Count("events-other-threads")
			if got := on.Diagnostics.Count("events-other-threads"); got != dropped {
				t.Errorf("events-other-threads: got %d with the option, %d without", got, dropped)
			}
			off.Diagnostics, on.Diagnostics = nil, nil
			if off.String() != on.String() {
				t.Errorf("the profile differs with Options.Unsampled")
			}
			// Count the input's events per thread.
			want := inputEvents(t, data)
			sampled := map[string]bool{}
			for _, th := range on.Threads {
				sampled[fmt.Sprint(th.PID, ":", th.TID)] = true
			}
			kept := 0
			for _, et := range ets {
				key := fmt.Sprint(et.PID, ":", et.TID)
				if sampled[key] {
					t.Errorf("thread %s has a profile and is an event thread too", key)
				}
				w := want[key]
				got := map[string]int{}
				for _, e := range et.Events {
					got[fmt.Sprintf("%c %s %d", e.Phase, on.Str(e.Name), e.Start)]++
				}
				if len(et.Events) != w.n {
					t.Errorf("thread %s (%s / %s): got %d events, want %d", key, et.ProcessName, et.Name, len(et.Events), w.n)
				}
				for k, n := range w.x {
					if got[k] != n {
						t.Errorf("thread %s: event %s: got %d, want %d", key, k, got[k], n)
					}
				}
				if !slices.IsSortedFunc(et.Events, func(a, b profile.Event) int { return int(a.Start - b.Start) }) {
					t.Errorf("thread %s: events not sorted by start", key)
				}
				kept += len(et.Events)
				t.Logf("%s / %s (%s): %d events", et.ProcessName, et.Name, key, len(et.Events))
			}
			if int64(kept) != dropped {
				t.Errorf("got %d events on event threads, want the %d the reader drops without the option", kept, dropped)
			}
			for key, w := range want {
				if !sampled[key] && w.n > 0 && !slices.ContainsFunc(ets, func(et chrometrace.EventThread) bool { return fmt.Sprint(et.PID, ":", et.TID) == key }) {
					t.Errorf("thread %s has %d events in the input and no event thread", key, w.n)
				}
			}
			if len(ets) < 3 {
				t.Errorf("got %d event threads, want several", len(ets))
			}
		})
	}
}

// threadEvents counts a thread's kept events in the input: n in all, and
// its X events by "phase name start".
type threadEvents struct {
	n int
	x map[string]int
}

// inputEvents counts the X, I and B events of each pid:tid of a trace with
// encoding/json (the reader under test is not used).
func inputEvents(t *testing.T, data []byte) map[string]*threadEvents {
	t.Helper()
	type event struct {
		Ph   string          `json:"ph"`
		Name string          `json:"name"`
		Pid  json.RawMessage `json:"pid"`
		Tid  json.RawMessage `json:"tid"`
		Ts   float64         `json:"ts"`
	}
	var doc struct {
		TraceEvents []event `json:"traceEvents"`
	}
	var err error
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		err = json.Unmarshal(data, &doc.TraceEvents)
	} else {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*threadEvents{}
	for _, e := range doc.TraceEvents {
		switch e.Name {
		case "Profile", "ProfileChunk", "CpuProfile":
			continue
		}
		if e.Ph != "X" && e.Ph != "I" && e.Ph != "B" {
			continue
		}
		key := fmt.Sprint(string(e.Pid), ":", string(e.Tid))
		w := out[key]
		if w == nil {
			w = &threadEvents{x: map[string]int{}}
			out[key] = w
		}
		w.n++
		if e.Ph == "X" {
			w.x[fmt.Sprintf("X %s %d", e.Name, profile.TimeFromMicros(e.Ts))]++
		}
	}
	return out
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

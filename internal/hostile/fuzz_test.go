package hostile_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/hostile"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// FuzzWriters: input → model → every writer. Whatever a reader accepts,
// every writer writes without panicking, and what the cpuprofile, trace and
// pprof writers produce reads back into a valid profile.
func FuzzWriters(f *testing.F) {
	for _, c := range hostile.SmallCases() {
		if len(c.Data) < 64<<10 {
			f.Add(c.Data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) {
			return format.Parse(data, format.Options{Trace: chrometrace.Options{KeepArgs: true, MaxEventBytes: 1 << 20}})
		})
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid profile: %v", err)
		}
		if len(p.Nodes) > 20000 || p.Samples.Len() > 20000 {
			return // keep each input cheap
		}
		// The analysed views (svg, pprof) are written from the session's
		// stacks, as convert writes them.
		sess := session.New("fuzz", p, session.Options{})
		var stacks []profile.ThreadStacks
		for _, th := range sess.Threads() {
			ts, err := th.Stacks(t.Context(), view.Options{})
			if err != nil {
				t.Logf("thread %d: no stacks: %v", th.ID, err)
				continue
			}
			stacks = append(stacks, ts)
		}
		for ti := range p.Threads {
			tid := profile.ThreadID(ti)
			var buf bytes.Buffer
			if err := v8.Write(&buf, p, v8.WriteOptions{Thread: tid}); err == nil && p.Threads[ti].Shape == profile.ShapeTree {
				q, err := v8.ParseBytes(buf.Bytes(), v8.Limits{})
				if err != nil {
					t.Fatalf("thread %d: written .cpuprofile does not read back: %v\n%.300s", ti, err, buf.String())
				}
				if err := q.Validate(); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, ts := range stacks {
			if err := svg.Write(io.Discard, sess.Profile, ts, svg.Options{}); err != nil {
				t.Logf("svg: %v", err)
			}
		}
		var buf bytes.Buffer
		if err := chrometrace.Write(&buf, p, chrometrace.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := chrometrace.Parse(&buf, chrometrace.Options{}); err != nil {
			t.Fatalf("written trace does not read back: %v", err)
		}
		buf.Reset()
		if err := pprof.Write(&buf, sess.Profile, stacks, pprof.Options{}); err == nil {
			if _, err := pprof.Parse(&buf); err != nil && p.Samples.Len() > 0 {
				t.Logf("pprof: %v", err)
			}
		}
		fw := folded.NewWriter(p)
		fw.WriteTo(io.Discard)
	})
}

package firefox_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// countingWriter counts the bytes written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

// recorded returns the stacks of every thread of s, computed once and kept
// (their paths too, as the session gives them), so that the benchmark
// measures Write alone.
func recorded(b *testing.B, s *session.Session) []profile.ThreadStacks {
	var out []profile.ThreadStacks
	for _, th := range s.Threads() {
		ts, err := th.Stacks(context.Background(), view.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var kept []profile.Stack
		for st := range ts.Stacks {
			c := *st
			c.Frames = slices.Clone(st.Frames)
			kept = append(kept, c)
		}
		out = append(out, profile.ThreadStacks{Thread: ts.Thread, Paths: ts.Paths, Stacks: func(yield func(*profile.Stack) bool) {
			for i := range kept {
				if !yield(&kept[i]) {
					return
				}
			}
		}})
	}
	return out
}

func benchWrite(b *testing.B, s *session.Session) {
	stacks := recorded(b, s)
	b.ReportAllocs()
	var out countingWriter
	if err := firefox.Write(&out, s.Profile, stacks, opts); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(out.n)
	for b.Loop() {
		if err := firefox.Write(io.Discard, s.Profile, stacks, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Profile.Samples.Len()), "samples/op")
}

// BenchmarkWrite measures Write (tables and JSON, from stacks computed
// beforehand) on a generated profile and, when the shared corpus is
// present, the real 48 MB large-profile.cpuprofile and a three-thread
// trace. MB/s is of output.
func BenchmarkWrite(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		p, err := format.Parse(proftest.LargeCPUProfile(1, 150_000, 150_000), format.Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchWrite(b, session.New("generated", p, session.Options{}))
	})
	for _, name := range []string{"large-profile.cpuprofile.gz", "two-workers.json.gz"} {
		b.Run(name, func(b *testing.B) {
			benchWrite(b, load(b, proftest.Corpus(b, "devtools/"+name)))
		})
	}
}

package speedscope_test

import (
	"bytes"
	"io"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// benchInput returns a benchmark input's profile (the session's) and its
// stacks under the "all" view with their path tree, computed once and
// kept, so that the benchmarks measure Write alone: a generated profile or, when the shared
// corpus is present, the real 48 MB large-profile.cpuprofile.
func benchInput(b *testing.B, name string) (*profile.Profile, []profile.ThreadStacks) {
	b.Helper()
	var data []byte
	switch name {
	case "generated":
		data = proftest.LargeCPUProfile(1, 50_000, 100_000)
	default:
		var err error
		data, err = input.ReadFile(proftest.Corpus(b, "devtools/large-profile.cpuprofile.gz"), nil, input.Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	p, err := format.Parse(data, format.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := session.New(name, p, session.Options{})
	var out []profile.ThreadStacks
	for _, ts := range threadStacks(b, s, view.Options{}) {
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
	return s.Profile, out
}

// BenchmarkWrite measures Write from stacks computed beforehand; MB/s are
// of the output.
func BenchmarkWrite(b *testing.B) {
	for _, name := range []string{"generated", "large-profile"} {
		b.Run(name, func(b *testing.B) {
			p, stacks := benchInput(b, name)
			var buf bytes.Buffer
			if err := speedscope.Write(&buf, p, stacks, speedscope.Options{}); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := speedscope.Write(io.Discard, p, stacks, speedscope.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.Samples.Len()), "samples/op")
		})
	}
}

// BenchmarkParse measures ParseBytes on what Write wrote for the same inputs.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"generated", "large-profile"} {
		b.Run(name, func(b *testing.B) {
			p, stacks := benchInput(b, name)
			var buf bytes.Buffer
			if err := speedscope.Write(&buf, p, stacks, speedscope.Options{}); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var samples int
			for b.Loop() {
				p, err := speedscope.ParseBytes(data)
				if err != nil {
					b.Fatal(err)
				}
				samples = p.Samples.Len()
			}
			b.ReportMetric(float64(samples), "samples/op")
		})
	}
}

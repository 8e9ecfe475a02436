package speedscope_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// benchProfiles returns the benchmark inputs: a generated profile and, when
// the shared corpus is present, the real 48 MB large-profile.cpuprofile.
func benchProfile(b *testing.B, name string) *profile.Profile {
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
	return p
}

// BenchmarkWrite measures Write (which builds the DevTools timeline and the
// view's stacks first); MB/s are of the output.
func BenchmarkWrite(b *testing.B) {
	for _, name := range []string{"generated", "large-profile"} {
		b.Run(name, func(b *testing.B) {
			p := benchProfile(b, name)
			var buf bytes.Buffer
			if err := speedscope.Write(&buf, p, speedscope.Options{}); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := speedscope.Write(io.Discard, p, speedscope.Options{}); err != nil {
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
			var buf bytes.Buffer
			if err := speedscope.Write(&buf, benchProfile(b, name), speedscope.Options{}); err != nil {
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

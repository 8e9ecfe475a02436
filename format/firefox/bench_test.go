package firefox_test

import (
	"io"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// countingWriter counts the bytes written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

func benchWrite(b *testing.B, p *profile.Profile) {
	b.ReportAllocs()
	var out countingWriter
	if err := firefox.Write(&out, p, firefox.Options{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(out.n)
	for b.Loop() {
		if err := firefox.Write(io.Discard, p, firefox.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.Samples.Len()), "samples/op")
}

// BenchmarkWrite measures Write (timelines, stacks, tables and JSON) on a
// generated profile and, when the shared corpus is present, the real 48 MB
// large-profile.cpuprofile and a three-thread trace. MB/s is of output.
func BenchmarkWrite(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		p, err := format.Parse(proftest.LargeCPUProfile(1, 150_000, 150_000), format.Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchWrite(b, p)
	})
	for _, name := range []string{"large-profile.cpuprofile.gz", "two-workers.json.gz"} {
		b.Run(name, func(b *testing.B) {
			p, err := format.ReadFile(proftest.Corpus(b, "devtools/"+name), nil, format.Options{})
			if err != nil {
				b.Fatal(err)
			}
			benchWrite(b, p)
		})
	}
}

package chrometrace_test

import (
	"bytes"
	"testing"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

func benchTrace(b *testing.B, data []byte) {
	for _, r := range []struct {
		name  string
		parse func([]byte) (*profile.Profile, error)
	}{
		{"stream", func(data []byte) (*profile.Profile, error) {
			return chrometrace.Parse(bytes.NewReader(data), chrometrace.Options{})
		}},
		{"whole", func(data []byte) (*profile.Profile, error) {
			return chrometrace.ParseBytes(data, chrometrace.Options{})
		}},
	} {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var events int
			for b.Loop() {
				p, err := r.parse(data)
				if err != nil {
					b.Fatal(err)
				}
				events = len(p.Events)
			}
			b.ReportMetric(float64(events), "kept-events/op")
		})
	}
}

// BenchmarkParse measures the reader on decompressed input held in memory,
// streamed (one core) and whole (the events array on two cores, as from a
// mapped file): a generated 100 MB trace, and the largest DevTools
// fixtures.
func BenchmarkParse(b *testing.B) {
	b.Run("generated-100MB", func(b *testing.B) {
		var buf bytes.Buffer
		if _, _, err := proftest.WriteLargeTrace(&buf, 1, 100_000_000); err != nil {
			b.Fatal(err)
		}
		benchTrace(b, buf.Bytes())
	})
	for _, name := range []string{"shift-attribution", "web-dev-screenshot-source-ids", "cls-no-nav", "nytimes-bad-mobile-viewport"} {
		b.Run(name, func(b *testing.B) {
			data, err := input.ReadFile(proftest.Corpus(b, "devtools/"+name+".json.gz"), nil, input.Options{})
			if err != nil {
				b.Fatal(err)
			}
			benchTrace(b, data)
		})
	}
}

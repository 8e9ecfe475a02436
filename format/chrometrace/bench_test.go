package chrometrace_test

import (
	"bytes"
	"testing"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
)

func benchTrace(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var events int
	for b.Loop() {
		p, err := chrometrace.Parse(bytes.NewReader(data), chrometrace.Options{})
		if err != nil {
			b.Fatal(err)
		}
		events = len(p.Events)
	}
	b.ReportMetric(float64(events), "kept-events/op")
}

// BenchmarkParse measures the streaming reader on decompressed input held in
// memory: a generated 100 MB trace, and the largest DevTools fixtures.
func BenchmarkParse(b *testing.B) {
	b.Run("generated-100MB", func(b *testing.B) {
		var buf bytes.Buffer
		if _, _, err := proftest.WriteLargeTrace(&buf, 1, 100_000_000); err != nil {
			b.Fatal(err)
		}
		benchTrace(b, buf.Bytes())
	})
	for _, name := range []string{"shift-attribution", "web-dev-screenshot-source-ids", "cls-no-nav"} {
		b.Run(name, func(b *testing.B) {
			data, err := input.ReadFile(proftest.Corpus(b, "devtools/"+name+".json.gz"), nil, input.Options{})
			if err != nil {
				b.Fatal(err)
			}
			benchTrace(b, data)
		})
	}
}

package v8_test

import (
	"testing"

	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
)

func benchParse(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var samples int
	for b.Loop() {
		p, err := v8.ParseBytes(data, v8.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		samples = p.Samples.Len()
	}
	b.ReportMetric(float64(samples), "samples/op")
}

// BenchmarkParse measures the reader alone on decompressed input held in
// memory: a generated 30+ MB profile and, when the shared corpus is present,
// the real 48 MB large-profile.cpuprofile.
func BenchmarkParse(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		benchParse(b, proftest.LargeCPUProfile(1, 150_000, 150_000))
	})
	b.Run("large-profile", func(b *testing.B) {
		path := proftest.Corpus(b, "devtools/large-profile.cpuprofile.gz")
		data, err := input.ReadFile(path, nil, input.Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchParse(b, data)
	})
	// The shapes of bench/shapes.sh at full size (genprofile's seed).
	for _, name := range []string{"typescript", "many-nodes", "samples-heavy"} {
		b.Run(name, func(b *testing.B) { benchParse(b, proftest.ShapeBytes(b, name)) })
	}
}

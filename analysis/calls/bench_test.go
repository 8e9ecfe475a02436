package calls_test

import (
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
)

// BenchmarkCalls measures DevTools' reconstruction (timeline + forEachFrame)
// on a generated 150k-node, 150k-sample profile.
func BenchmarkCalls(b *testing.B) {
	p, err := v8.ParseBytes(proftest.LargeCPUProfile(1, 150_000, 150_000), v8.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("count", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			tl, err := calls.NewTimeline(p, 0)
			if err != nil {
				b.Fatal(err)
			}
			n = tl.Count()
		}
		b.ReportMetric(float64(n), "calls/op")
	})
	b.Run("materialize", func(b *testing.B) {
		b.ReportAllocs()
		tl, err := calls.NewTimeline(p, 0)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			_ = tl.Calls()
		}
	})
}

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
		proftest.BenchCount(b, "calls/op", func() int {
			tl, err := calls.NewTimeline(p, 0)
			if err != nil {
				b.Fatal(err)
			}
			return tl.Count()
		})
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

// BenchmarkIntegrateShapes measures DevTools' ProfileCalls made by the
// trace integrator (the samples of a trace thread without events) on the
// node-heavy shapes of bench/shapes.sh: deep stacks, where each sample's
// stack is compared with the one before.
func BenchmarkIntegrateShapes(b *testing.B) {
	for _, name := range []string{"typescript", "many-nodes"} {
		b.Run(name, func(b *testing.B) {
			p, err := v8.ParseBytes(proftest.ShapeBytes(b, name), v8.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			tl, err := calls.NewTimeline(p, 0)
			if err != nil {
				b.Fatal(err)
			}
			proftest.BenchCount(b, "calls/op", func() int { return len(tl.Integrate(calls.IntegrateOptions{})) })
		})
	}
}

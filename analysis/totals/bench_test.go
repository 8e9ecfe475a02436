package totals_test

import (
	"testing"

	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
)

// BenchmarkFunctions/{vscode,xsbug} on a generated 100,000-node tree with
// 100,000 samples.
func BenchmarkFunctions(b *testing.B) {
	p, err := v8.ParseBytes(proftest.LargeCPUProfile(1, 100_000, 100_000), v8.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []totals.Semantics{totals.VSCode, totals.XSBug} {
		b.Run(s.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := totals.Functions(p, 0, s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.Samples.Len()), "samples/op")
		})
	}
}

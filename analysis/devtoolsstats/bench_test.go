package devtoolsstats

import (
	"math/rand/v2"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// benchEvents generates n entries: runs of nested entries of random
// categories, in DevTools' order.
func benchEvents(n int) []Event {
	r := rand.New(rand.NewPCG(1, 2))
	cats := []string{Other, Scripting, Rendering, Painting, Loading}
	evs := make([]Event, 0, n)
	t := profile.Time(1e12)
	for len(evs) < n {
		// A task with up to 8 levels of nesting.
		depth := 1 + r.IntN(8)
		dur := profile.Time(1+r.IntN(1000)) * 1000 * profile.Time(depth)
		for d := 0; d < depth && len(evs) < n; d++ {
			evs = append(evs, Event{Start: t + profile.Time(d)*1000, Dur: dur - 2*profile.Time(d)*1000, Category: cats[r.IntN(len(cats))]})
		}
		t += dur + profile.Time(r.IntN(100))*1000
	}
	return evs
}

func BenchmarkStatsForTimeRange(b *testing.B) {
	evs := benchEvents(1_000_000)
	start, end := evs[0].Start, evs[len(evs)-1].Start+evs[len(evs)-1].Dur
	b.ReportAllocs()
	b.ReportMetric(float64(len(evs)), "entries/op")
	for b.Loop() {
		StatsForTimeRange(evs, start, end)
	}
}

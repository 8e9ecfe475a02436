package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		floor, live uint64
		want        int
	}{
		{16 * mb, 0, 400},       // the runtime's minimum scaled to the floor
		{16 * mb, 1 * mb, 400},  // still the minimum: 1 MB·5 is below it
		{16 * mb, 8 * mb, 100},  // 8 MB·2 = 16 MB
		{16 * mb, 12 * mb, 33},  // 12 MB·1.33 ≈ 16 MB
		{16 * mb, 13 * mb, 25},  // 13 MB·1.25 is above the floor
		{16 * mb, 200 * mb, 25}, // a large heap: GOGC rules
		{0, 1 * mb, 25},         // no floor
		{1 * mb, 512 << 10, 25}, // a floor below the runtime's own minimum (1 MB at 25)
	} {
		if got := percentFor(25, c.floor, c.live); got != c.want {
			t.Errorf("percentFor(25, %d MB, %.1f MB) = %d, want %d", c.floor/mb, float64(c.live)/mb, got, c.want)
		}
	}
}

var sink []byte

// TestFloor churns garbage with a small live heap, then holds a large one:
// below the floor the heap is collected about once per floor's worth of
// allocation (at GOGC=25 without it, once a megabyte), above it at the
// given percent.
func TestFloor(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const mb = 1 << 20
	Floor(25, 32*mb)
	runtime.GC()
	before := numGC()
	for range 4096 {
		sink = make([]byte, 64<<10) // 256 MB in all, 64 KB live
	}
	n := numGC() - before
	t.Logf("%d collections", n)
	// The runtime starts a cycle before the heap reaches its goal (at 70
	// to 95% of it, as its pacer sees fit): about 8 to 12 cycles, and 13
	// on a loaded machine. Without the floor, 64 at least (78 here).
	if n > 24 {
		t.Errorf("%d collections for 256 MB of garbage under a 32 MB floor, want at most 24", n)
	}
	live := make([][]byte, 0, 128)
	for range 128 {
		live = append(live, make([]byte, mb))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p == 25 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GC percent %d with a live heap of 128 MB, want 25", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}

func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

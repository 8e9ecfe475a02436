// Package gctune sets the garbage collector's pace for the jsprof command: a
// GC percent for a large heap, and a floor below which the heap is not
// collected at all.
//
// jsprof runs with GOGC=25, to keep its peak memory near the input's size
// (the default, 100, lets a large heap grow to twice its live size). But
// the runtime scales its minimum heap goal, 4 MB, by the same percent: at
// 25 a heap is collected every time it grows by 1 MB, and a trace whose
// live heap stays at a few MB while the reader allocates 18–28 MB was
// collected 13–25 times in 60–80 ms. Floor keeps the heap goal at floor
// bytes or more, and leaves GOGC to rule above it: after each collection
// the percent is set so that the next goal is max(floor, live·(1+percent)).
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor sets the collector to collect a heap of more than floor bytes when
// it grows by percent of its live size, and not to collect one smaller
// than floor. It is process-wide; call it once, from main.
func Floor(percent int, floor uint64) {
	t := &tuner{percent: percent, floor: floor, set: -1}
	t.adjust(0)
	t.arm()
	current.Lock()
	if old := current.t; old != nil {
		old.mu.Lock()
		old.stopped = true
		old.mu.Unlock()
	}
	current.t = t
	current.Unlock()
}

// current is the tuner Floor set last (tests call Floor more than once:
// the tuner before stops adjusting).
var current struct {
	sync.Mutex
	t *tuner
}

type tuner struct {
	mu      sync.Mutex
	percent int
	floor   uint64
	set     int // the percent last set, −1 before the first
	stopped bool
	sample  [1]metrics.Sample
}

// sentinel is allocated to be collected: its cleanup runs after each
// collection that found it unreachable, and arms the next one. It holds a
// pointer so that it is not a tiny allocation, which can share a block
// with live data and then never be found unreachable.
type sentinel struct{ _ *int }

func (t *tuner) arm() {
	runtime.AddCleanup(&sentinel{}, func(t *tuner) {
		t.mu.Lock()
		stopped := t.stopped
		t.mu.Unlock()
		if stopped {
			return
		}
		t.adjust(t.live())
		t.arm()
	}, t)
}

// live returns the heap found live by the last collection.
func (t *tuner) live() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sample[0].Name = "/gc/heap/live:bytes"
	metrics.Read(t.sample[:])
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return t.sample[0].Value.Uint64()
}

// adjust sets the percent for a live heap of live bytes.
func (t *tuner) adjust(live uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := percentFor(t.percent, t.floor, live)
	if p != t.set {
		debug.SetGCPercent(p)
		t.set = p
	}
}

// minHeap is the runtime's minimum heap goal at GOGC=100, which it scales
// by the GC percent.
const minHeap = 4 << 20

// percentFor returns the GC percent that sets the next heap goal of a live
// heap of live bytes to max(floor, live·(1+percent/100)). The runtime's
// goal is the larger of live·(1+p/100) and its minimum scaled by p, both
// growing with p: the percent is the smaller of those that bring each to
// the goal.
func percentFor(percent int, floor, live uint64) int {
	goal := max(floor, live+live*uint64(percent)/100)
	p := goal * 100 / minHeap
	if live > 0 {
		p = min(p, (goal-live)*100/live)
	}
	return max(percent, int(min(p, 1<<30)))
}

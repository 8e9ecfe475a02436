package server

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
)

// The flame chart of a long .cpuprofile, walked a stretch at a time.
//
// The flame index keeps a .cpuprofile's calls in 24 bytes each. A long
// recording of deep stacks has far more calls than samples: the 246 MB
// recording of a recursion (27 M samples) opens 211 M calls, and indexing
// them took 23 s and 5 GB. From flameHugeCalls calls the index keeps,
// instead, the walk's state (calls.WalkState) every flameCheckpointEvery
// samples, and each request walks the stretch of samples its window
// needs, from the last state before it: a window costs a walk of its
// samples, and the whole recording's window a walk of all of them.
//
// The boxes are the same as the index's: each level's calls close in the
// order they start, so the boxes of a level are made as its calls close
// (levelBoxes, the loop of flameIndex.boxes a call at a time). A walk
// stops at the first kept state at or after the window's end: the calls
// still open there are the last of their levels that start in the window,
// and their durations were kept when the first walk closed them (final).

// flameHugeCalls is the number of calls of a .cpuprofile from which its
// flame chart is walked rather than indexed (a variable for tests).
var flameHugeCalls = 4 << 20

// flameCheckpointEvery is the number of samples between two kept walk
// states (a variable for tests).
var flameCheckpointEvery = 1 << 16

// hugeFlame is the flame chart of a .cpuprofile with too many calls to
// index.
type hugeFlame struct {
	tl     *calls.Timeline
	cps    []flameCheckpoint
	calls  int32 // in all
	levels int
	// final holds the duration and self time of every call open at a
	// checkpoint, by id.
	final map[int32][2]profile.Time

	mu   sync.Mutex // guards last and recent
	last struct {   // the call found last, for the questions about one entry
		id int32
		c  calls.Call
		ok bool
	}
	// recent holds the boxes of the last windows asked for (a walk of the
	// whole recording is seconds: going back to it is common).
	recent []recentBoxes
}

type recentBoxes struct {
	from, to, origin profile.Time
	width            int
	boxes            report.FlameBoxes
}

// recentWindows is how many windows' boxes hugeFlame keeps.
const recentWindows = 4

// flameCheckpoint is the walk's state before one of its samples.
type flameCheckpoint struct {
	st     calls.WalkState
	at     profile.Time // the time of the sample the state stands before
	nextID int32        // the id of the next call to open
	ids    []int32      // the ids of st.Open()'s calls
}

// checkpointer is what the first walk finds: the calls per level, and the
// durations of those open at a checkpoint, kept when they close.
type checkpointer struct {
	count   []int32
	pending map[int32]bool
	final   map[int32][2]profile.Time
}

func (v *checkpointer) closed(id int32, c *calls.Call) {
	for int(c.Depth) >= len(v.count) {
		v.count = append(v.count, 0)
	}
	v.count[c.Depth]++
	if v.pending[id] {
		v.final[id] = [2]profile.Time{c.Dur, c.Self}
		delete(v.pending, id)
	}
}

// checkpointWalk walks the timeline once, keeping a state every
// flameCheckpointEvery samples. It returns what it found, the number of
// calls and the checkpoints.
func checkpointWalk(ctx context.Context, tl *calls.Timeline) (*checkpointer, int32, []flameCheckpoint, error) {
	v := &checkpointer{pending: map[int32]bool{}, final: map[int32][2]profile.Time{}}
	w := &idWalk{fn: v.closed}
	var cps []flameCheckpoint
	var st calls.WalkState
	n := tl.Len()
	if n == 0 { // as Walk: no calls
		return v, 0, nil, nil
	}
	for lo := 0; lo < n; lo += flameCheckpointEvery {
		if err := ctx.Err(); err != nil {
			return nil, 0, nil, err
		}
		for _, id := range w.open {
			v.pending[id] = true
		}
		cps = append(cps, flameCheckpoint{st: st.Clone(), at: tl.Times.At(lo), nextID: w.next, ids: slices.Clone(w.open)})
		tl.WalkTo(w, &st, min(lo+flameCheckpointEvery, n))
	}
	tl.FinishWalk(w, &st)
	return v, w.next, cps, nil
}

// walkFrom walks from checkpoint k until stop(j) reports true at a later
// checkpoint j, or to the end, giving each call with its id to fn as it
// closes; with closeOpen, also those open where the walk stops, with their
// kept durations, innermost first.
func (h *hugeFlame) walkFrom(k int, fn func(id int32, c *calls.Call), stop func(cp int) bool, closeOpen bool) {
	cp := &h.cps[k]
	st := cp.st.Clone()
	g := &idWalk{open: slices.Clone(cp.ids), next: cp.nextID, fn: fn}
	n := h.tl.Len()
	for j := k + 1; ; j++ {
		if j == len(h.cps) {
			h.tl.WalkTo(g, &st, n)
			h.tl.FinishWalk(g, &st)
			return
		}
		h.tl.WalkTo(g, &st, h.cps[j].st.Next())
		if stop(j) {
			if !closeOpen {
				return
			}
			open := st.Open()
			for i := len(open) - 1; i >= 0; i-- {
				c := open[i]
				d := h.final[g.open[i]]
				c.Dur, c.Self = d[0], d[1]
				fn(g.open[i], &c)
			}
			return
		}
	}
}

// idWalk numbers the calls of a walk (from 0, or from a checkpoint's
// next id) and gives each with its number to fn as it closes.
type idWalk struct {
	open []int32
	next int32
	fn   func(id int32, c *calls.Call)
}

func (g *idWalk) Open(*calls.Call) {
	g.open = append(g.open, g.next)
	g.next++
}

func (g *idWalk) Close(c *calls.Call) {
	id := g.open[len(g.open)-1]
	g.open = g.open[:len(g.open)-1]
	g.fn(id, c)
}

// checkpointAt returns the last checkpoint at or before time t (the
// first when none).
func (h *hugeFlame) checkpointAt(t profile.Time) int {
	return max(0, sort.Search(len(h.cps), func(k int) bool { return h.cps[k].at > t })-1)
}

// call returns call id (an id below h.calls): a walk of the stretch it
// opens in, to its close or, where it is still open at the next
// checkpoint, to its kept duration there.
func (h *hugeFlame) call(id int32) calls.Call {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last.ok && h.last.id == id {
		return h.last.c
	}
	k := sort.Search(len(h.cps), func(k int) bool { return h.cps[k].nextID > id }) - 1
	var found calls.Call
	h.walkFrom(k, func(got int32, c *calls.Call) {
		if got == id {
			found = *c
		}
	}, func(int) bool { return true }, true)
	h.last.id, h.last.c, h.last.ok = id, found, true
	return found
}

// boxes is flameIndex.boxes for a huge flame chart.
func (h *hugeFlame) boxes(p *profile.Profile, frameCat []uint8, from, to, origin profile.Time, width int) report.FlameBoxes {
	h.mu.Lock()
	for _, r := range h.recent {
		if r.from == from && r.to == to && r.origin == origin && r.width == width {
			h.mu.Unlock()
			return r.boxes
		}
	}
	h.mu.Unlock()
	out := h.walkBoxes(p, frameCat, from, to, origin, width)
	h.mu.Lock()
	if len(h.recent) == recentWindows {
		h.recent = h.recent[1:]
	}
	h.recent = append(h.recent, recentBoxes{from, to, origin, width, out})
	h.mu.Unlock()
	return out
}

// walkBoxes makes the boxes of a window by walking its samples.
func (h *hugeFlame) walkBoxes(p *profile.Profile, frameCat []uint8, from, to, origin profile.Time, width int) report.FlameBoxes {
	out := newFlameBoxes(from, to, origin, h.levels)
	px := float64(to-from) / float64(width)
	// A µs of margin each side: a call's start is its sample's time by
	// way of DevTools' float ms, which can round a ns away.
	const margin = 1000
	lo := h.checkpointAt(from - margin)
	hi := lo + 1 // the checkpoint the walk stops at; len(h.cps): the end
	for hi < len(h.cps) && h.cps[hi].at < to+margin {
		hi++
	}
	// The stretches from lo to hi, or two halves of them on two cores.
	walk := func(k, stop int, closeOpen bool) []levelBoxes {
		lv := make([]levelBoxes, h.levels)
		for l := range lv {
			lv[l] = levelBoxes{from: from, to: to, px: px}
		}
		h.walkFrom(k, func(id int32, c *calls.Call) {
			lv[c.Depth].add(flameItem{start: c.Start, dur: c.Dur, id: id, node: c.Node})
		}, func(cp int) bool { return cp >= stop }, closeOpen)
		return lv
	}
	var lv []levelBoxes
	if hi-lo < 2 {
		lv = walk(lo, hi, true)
	} else {
		mid := (lo + hi) / 2
		var second []levelBoxes
		var wg sync.WaitGroup
		wg.Go(func() { second = walk(mid, hi, true) })
		lv = walk(lo, mid, false)
		wg.Wait()
		for l := range lv {
			lv[l].join(&second[l])
		}
	}
	names := map[profile.StringID]int32{}
	for l := range lv {
		lv[l].flush()
		for _, b := range lv[l].out {
			name, id := int32(-1), int32(-1) // a merged box's
			if b.count == 1 {
				name, id = nameIndex(p, &out, names, p.NodeFrame(b.first.node).Name), b.first.id
			}
			addBox(&out, int32(l), b.first.start-origin, b.end-b.first.start, name, frameCat[p.Nodes[b.first.node].Frame], id, b.count)
		}
	}
	return out
}

// flameItem is a call as a box is drawn of it.
type flameItem struct {
	start, dur profile.Time
	id         int32
	node       profile.NodeID
}

// levelBoxes makes one level's boxes from its calls given in start order,
// as flameIndex.boxes does from the level's slots: every call at least a
// pixel wide as itself, and runs of narrower ones that start in the
// window, each within a pixel of the run's end, merged into one box.
type levelBoxes struct {
	from, to profile.Time
	px       float64
	run      bool // a run is being gathered
	done     bool // a call starting at or after to was met
	first    flameItem
	end      profile.Time
	count    int32
	out      []flameBox
}

// flameBox is a box of one level: a call (count 1) or a run of them.
type flameBox struct {
	first flameItem
	end   profile.Time
	count int32
	run   bool // made as a run: its first call was narrow
}

// join appends the boxes of later, the same level's calls after lb's
// (from the checkpoint where lb's walk stopped, with later's own state
// from there): its first box, if a run, goes on lb's run where lb's run
// would have taken in its first call. Merged so, the boxes are those of
// one walk: a run's end is its last call's, so the rest of later's run
// grows as it would have on lb's.
func (lb *levelBoxes) join(later *levelBoxes) {
	later.flush()
	rest := later.out
	if lb.run && len(rest) > 0 && rest[0].run && rest[0].first.start < min(lb.end+profile.Time(lb.px), lb.to) {
		lb.end = max(lb.end, rest[0].end)
		lb.count += rest[0].count
		rest = rest[1:]
	}
	lb.flush()
	lb.out = append(lb.out, rest...)
	lb.done = lb.done || later.done
}

func (lb *levelBoxes) add(it flameItem) {
	if lb.done || !lb.run && it.start+it.dur <= lb.from {
		return
	}
	wide := float64(it.dur) >= lb.px
	if lb.run {
		if !wide && it.start < min(lb.end+profile.Time(lb.px), lb.to) {
			lb.end = max(lb.end, it.start+it.dur)
			lb.count++
			return
		}
		lb.flush()
	}
	switch {
	case it.start >= lb.to:
		lb.done = true
	case wide:
		lb.out = append(lb.out, flameBox{first: it, end: it.start + it.dur, count: 1})
	default:
		lb.run, lb.first, lb.end, lb.count = true, it, it.start+it.dur, 1
	}
}

func (lb *levelBoxes) flush() {
	if lb.run {
		lb.out = append(lb.out, flameBox{first: lb.first, end: lb.end, count: lb.count, run: true})
		lb.run = false
	}
}

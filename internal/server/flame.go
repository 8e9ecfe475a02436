package server

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// flameIndex is a thread's flame chart arranged for viewport queries, in
// slots: level l's entries are the slots off[l]:off[l+1], in start order
// (entries on a level do not overlap, so their ends are in order too).
// ids[slot] is the entry's id: an index into the session's flame entries
// of a trace thread (or of an event thread's, events.go), or into the
// calls of a .cpuprofile in DevTools' order (its flame chart is its calls
// at their depth).
//
// A trace's entries are the session's, read through ids. A .cpuprofile's
// calls are not materialised (1.4 M of them take 56 MB as calls.Call): the
// index walks the timeline once and keeps, per slot, what it draws and
// details in 24 bytes (start, duration, self time, node, id).
type flameIndex struct {
	p   *profile.Profile
	off []int32 // len(levels)+1
	ids []int32

	// A .cpuprofile's calls, per slot.
	cStart      []profile.Time
	cDur, cSelf []uint32 // ns; long marks a value kept in longDur/longSelf
	cNode       []profile.NodeID
	longDur     map[int32]profile.Time // by slot
	longSelf    map[int32]profile.Time
	frameCat    []uint8 // per frame, its category (calls)

	// A .cpuprofile's calls when too many to index: walked on request.
	huge *hugeFlame

	// A trace's entries, its calls and the events es index.
	es    []calls.Entry
	cs    []calls.Call
	ev    []profile.Event
	cum   [][]int64 // per level, cum[k] = Σ dur of its first k entries
	evCat map[profile.StringID]uint8
	// evFrame maps an event name to the session's frame for it.
	evFrame map[profile.StringID]profile.FrameID
}

// long marks a duration of 2³²−1 ns (4.3 s) or more, kept in a map.
const long = math.MaxUint32

// buildFlame indexes the thread's flame chart: DevTools' entries for a
// trace thread, the calls at their depth for a .cpuprofile.
func buildFlame(ctx context.Context, th *session.Thread) (*flameIndex, error) {
	p := th.Session().Profile
	fx := &flameIndex{p: p, frameCat: make([]uint8, len(p.Frames))}
	for i := range p.Frames {
		c, _ := category.Frame(p, &p.Frames[i])
		fx.frameCat[i] = uint8(c)
	}
	if !th.IsTrace() {
		tl, err := th.Timeline(ctx)
		if err != nil {
			return nil, err
		}
		if err := fx.walk(ctx, tl); err != nil {
			return nil, err
		}
		return fx, nil
	}
	var err error
	if fx.cs, err = th.Calls(ctx); err != nil {
		return nil, err
	}
	if fx.es, err = th.FlameEntries(ctx); err != nil {
		return nil, err
	}
	fx.ev = p.Events
	fx.evCat = map[profile.StringID]uint8{}
	fx.evFrame = eventFrames(p)
	for _, e := range fx.es {
		if e.Event < 0 {
			continue
		}
		name := fx.ev[e.Event].Name
		if _, ok := fx.evCat[name]; !ok {
			c, _, found := category.Event(p, p.Str(name))
			if !found {
				c = profile.CatOther
			}
			fx.evCat[name] = uint8(c)
		}
	}
	if err := fx.index(ctx); err != nil {
		return nil, err
	}
	return fx, nil
}

// index arranges a trace's entries (fx.es) in slots by level and start,
// and sums their durations per level.
func (fx *flameIndex) index(ctx context.Context) error {
	var count []int32 // per level
	for _, e := range fx.es {
		for int(e.Level) >= len(count) {
			count = append(count, 0)
		}
		count[e.Level]++
	}
	fx.off = make([]int32, len(count)+1)
	for l, n := range count {
		fx.off[l+1] = fx.off[l] + n
	}
	fx.ids = make([]int32, len(fx.es))
	fill := slices.Clone(fx.off[:len(count)])
	for id, e := range fx.es {
		fx.ids[fill[e.Level]] = int32(id)
		fill[e.Level]++
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fx.cum = make([][]int64, len(count))
	for l := range count {
		ids := fx.ids[fx.off[l]:fx.off[l+1]]
		byStart := func(a, b int32) int { return int(fx.es[a].Start - fx.es[b].Start) }
		if !slices.IsSortedFunc(ids, byStart) {
			slices.SortStableFunc(ids, byStart)
		}
		cum := make([]int64, len(ids)+1)
		for k, id := range ids {
			cum[k+1] = cum[k] + int64(fx.es[id].Dur)
		}
		fx.cum[l] = cum
	}
	return nil
}

// callSlots fills a .cpuprofile's slots in the second of two walks (the
// first, checkpointWalk, counts the calls per level), so that nothing is
// materialised but the slots: each level's slots in the order its calls
// close, which is their start order. Ids follow the order the calls open
// (DevTools' order, as session.Thread.Calls), as idWalk numbers them.
type callSlots struct {
	fx   *flameIndex
	fill []int32 // the next slot per level
}

func (v *callSlots) closed(id int32, c *calls.Call) {
	fx := v.fx
	s := v.fill[c.Depth]
	v.fill[c.Depth]++
	fx.ids[s] = id
	fx.cStart[s] = c.Start
	fx.cDur[s] = short(c.Dur, s, fx.longDur)
	fx.cSelf[s] = short(c.Self, s, fx.longSelf)
	fx.cNode[s] = c.Node
}

// walk fills the slots of a .cpuprofile from its timeline: a first walk
// counts the calls per level (and keeps the walk's state every
// flameCheckpointEvery samples), the second fills the slots; from
// flameHugeCalls calls the states are kept instead (hugeFlame).
func (fx *flameIndex) walk(ctx context.Context, tl *calls.Timeline) error {
	counted, total, cps, err := checkpointWalk(ctx, tl)
	if err != nil {
		return err
	}
	if int(total) > flameHugeCalls {
		fx.huge = &hugeFlame{tl: tl, cps: cps, calls: total, levels: len(counted.count), final: counted.final}
		return nil
	}
	n := int(total)
	fx.off = make([]int32, len(counted.count)+1)
	for l, k := range counted.count {
		fx.off[l+1] = fx.off[l] + k
	}
	fx.ids = make([]int32, n)
	fx.cStart = make([]profile.Time, n)
	fx.cDur = make([]uint32, n)
	fx.cSelf = make([]uint32, n)
	fx.cNode = make([]profile.NodeID, n)
	fx.longDur, fx.longSelf = map[int32]profile.Time{}, map[int32]profile.Time{}
	v := &callSlots{fx: fx, fill: slices.Clone(fx.off[:len(counted.count)])}
	tl.Walk(&idWalk{fn: v.closed})
	return nil
}

// short returns t as a uint32, or long after keeping t in m at slot s.
func short(t profile.Time, s int32, m map[int32]profile.Time) uint32 {
	if t >= 0 && t < long {
		return uint32(t)
	}
	m[s] = t
	return long
}

func (fx *flameIndex) levels() int {
	if fx.huge != nil {
		return fx.huge.levels
	}
	return len(fx.off) - 1
}

func (fx *flameIndex) len() int {
	if fx.huge != nil {
		return int(fx.huge.calls)
	}
	return len(fx.ids)
}

// Per slot.

func (fx *flameIndex) sStart(s int32) profile.Time {
	if fx.es != nil {
		return fx.es[fx.ids[s]].Start
	}
	return fx.cStart[s]
}

func (fx *flameIndex) sDur(s int32) profile.Time {
	if fx.es != nil {
		return fx.es[fx.ids[s]].Dur
	}
	if d := fx.cDur[s]; d != long {
		return profile.Time(d)
	}
	return fx.longDur[s]
}

func (fx *flameIndex) sName(s int32) profile.StringID {
	if fx.es != nil {
		return fx.name(fx.ids[s])
	}
	return fx.p.NodeFrame(fx.cNode[s]).Name
}

func (fx *flameIndex) sCat(s int32) uint8 {
	if fx.es != nil {
		return fx.cat(fx.ids[s])
	}
	return fx.frameCat[fx.p.Nodes[fx.cNode[s]].Frame]
}

// slot returns the slot of entry id of a .cpuprofile and its level: ids
// grow with the start on each level (calls open in time order), so a
// binary search per level finds it.
func (fx *flameIndex) slot(id int32) (s, level int32) {
	for l := range fx.levels() {
		ids := fx.ids[fx.off[l]:fx.off[l+1]]
		if k, ok := slices.BinarySearch(ids, id); ok {
			return fx.off[l] + int32(k), int32(l)
		}
	}
	panic("flame index: no slot for an entry id") // ids are checked against len
}

// Per entry id (the API's).

func (fx *flameIndex) level(id int32) int32 {
	if fx.huge != nil {
		return fx.huge.call(id).Depth
	}
	if fx.es != nil {
		return fx.es[id].Level
	}
	_, l := fx.slot(id)
	return l
}

func (fx *flameIndex) start(id int32) profile.Time {
	if fx.huge != nil {
		return fx.huge.call(id).Start
	}
	if fx.es != nil {
		return fx.es[id].Start
	}
	s, _ := fx.slot(id)
	return fx.cStart[s]
}

func (fx *flameIndex) dur(id int32) profile.Time {
	if fx.huge != nil {
		return fx.huge.call(id).Dur
	}
	if fx.es != nil {
		return fx.es[id].Dur
	}
	s, _ := fx.slot(id)
	return fx.sDur(s)
}

// call returns the call of a trace entry, or nil for a trace event.
func (fx *flameIndex) call(id int32) *calls.Call {
	if c := fx.es[id].Call; c >= 0 {
		return &fx.cs[c]
	}
	return nil
}

// node returns the node of an entry that is a call, else false.
func (fx *flameIndex) node(id int32) (profile.NodeID, bool) {
	if fx.huge != nil {
		return fx.huge.call(id).Node, true
	}
	if fx.es == nil {
		s, _ := fx.slot(id)
		return fx.cNode[s], true
	}
	if c := fx.call(id); c != nil {
		return c.Node, true
	}
	return 0, false
}

// frame returns the entry's frame: its call's, or the session's frame for
// the event's name.
func (fx *flameIndex) frame(id int32) profile.FrameID {
	if n, ok := fx.node(id); ok {
		return fx.p.Nodes[n].Frame
	}
	return fx.evFrame[fx.ev[fx.es[id].Event].Name]
}

func (fx *flameIndex) name(id int32) profile.StringID {
	if n, ok := fx.node(id); ok {
		return fx.p.NodeFrame(n).Name
	}
	return fx.ev[fx.es[id].Event].Name
}

func (fx *flameIndex) cat(id int32) uint8 {
	if n, ok := fx.node(id); ok {
		return fx.frameCat[fx.p.Nodes[n].Frame]
	}
	return fx.evCat[fx.ev[fx.es[id].Event].Name]
}

// eventFrames maps each trace event name to the session's frame for it
// (profile.KindEvent).
func eventFrames(p *profile.Profile) map[profile.StringID]profile.FrameID {
	m := map[profile.StringID]profile.FrameID{}
	for i := range p.Frames {
		if p.Frames[i].Kind == profile.KindEvent {
			m[p.Frames[i].Name] = profile.FrameID(i)
		}
	}
	return m
}

// selfTime returns an entry's self time: a call's own, else its duration
// less that of the entries one level deeper that start within it.
func (fx *flameIndex) selfTime(id int32) profile.Time {
	if fx.huge != nil {
		return fx.huge.call(id).Self
	}
	if fx.es == nil {
		s, _ := fx.slot(id)
		if v := fx.cSelf[s]; v != long {
			return profile.Time(v)
		}
		return fx.longSelf[s]
	}
	if c := fx.call(id); c != nil {
		return c.Self
	}
	l := fx.level(id) + 1
	if int(l) >= fx.levels() {
		return fx.dur(id)
	}
	lo, hi := fx.off[l], fx.off[l+1]
	s, e := fx.start(id), fx.start(id)+fx.dur(id)
	i := sort.Search(int(hi-lo), func(k int) bool { return fx.sStart(lo+int32(k)) >= s })
	j := sort.Search(int(hi-lo), func(k int) bool { return fx.sStart(lo+int32(k)) >= e })
	return max(0, fx.dur(id)-profile.Time(fx.cum[l][j]-fx.cum[l][i]))
}

// boxes returns the boxes to draw for the window [from, to) (absolute ns)
// at width pixels: every entry at least a pixel wide as itself, and runs
// of narrower entries with gaps under a pixel merged into one box (the
// category of the first). origin is subtracted from the times written.
func (fx *flameIndex) boxes(from, to, origin profile.Time, width int) report.FlameBoxes {
	if fx.huge != nil {
		return fx.huge.boxes(fx.p, fx.frameCat, from, to, origin, width)
	}
	p := fx.p
	out := newFlameBoxes(from, to, origin, fx.levels())
	px := float64(to-from) / float64(width) // ns per pixel
	names := map[profile.StringID]int32{}
	emit := func(level int32, start, dur profile.Time, name int32, cat uint8, id, count int32) {
		addBox(&out, level, start-origin, dur, name, cat, id, count)
	}
	wide := func(s int32) bool { return float64(fx.sDur(s)) >= px }
	end := func(s int32) profile.Time { return fx.sStart(s) + fx.sDur(s) }
	for l := range int32(fx.levels()) {
		lo, hi := fx.off[l], fx.off[l+1]
		// The first entry ending after from.
		i := lo + int32(sort.Search(int(hi-lo), func(k int) bool { return end(lo+int32(k)) > from }))
		for i < hi {
			s := fx.sStart(i)
			if s >= to {
				break
			}
			if wide(i) {
				emit(l, s, fx.sDur(i), nameIndex(p, &out, names, fx.sName(i)), fx.sCat(i), fx.ids[i], 1)
				i++
				continue
			}
			// A run of narrow entries, each starting within a pixel of the
			// run's end: jump a pixel at a time.
			j, runEnd := i+1, end(i)
			for j < hi {
				// Entries that start at or after to are not merged in:
				// a run covers the window's entries (so a walked flame
				// chart, which stops at the window's end, finds the same).
				lim := runEnd + profile.Time(px)
				limTo := min(lim, to)
				k := j + int32(sort.Search(int(hi-j), func(m int) bool { return fx.sStart(j+int32(m)) >= limTo }))
				// A wide entry can only be the last of them (it ends after lim).
				if k > j && wide(k-1) {
					k--
				}
				if k == j {
					break
				}
				runEnd = max(runEnd, end(k-1))
				j = k
				if k < hi && wide(k) && fx.sStart(k) < lim {
					break
				}
			}
			if j == i+1 {
				emit(l, s, fx.sDur(i), nameIndex(p, &out, names, fx.sName(i)), fx.sCat(i), fx.ids[i], 1)
			} else {
				emit(l, s, runEnd-s, -1, fx.sCat(i), -1, j-i)
			}
			i = j
		}
	}
	return out
}

// newFlameBoxes returns the answer for the window [from, to), with no
// boxes yet.
func newFlameBoxes(from, to, origin profile.Time, levels int) report.FlameBoxes {
	return report.FlameBoxes{FromUs: report.Micros(from - origin), ToUs: report.Micros(to - origin), Levels: levels,
		Level: []int32{}, Start: []report.Micros{}, Dur: []report.Micros{}, Name: []int32{}, Cat: []uint16{}, ID: []int32{}, Count: []int32{}, Names: []string{}}
}

// addBox appends a box to out: start from the origin, name an index in
// out.Names (−1 for a merged box), id −1 for a merged box.
func addBox(out *report.FlameBoxes, level int32, start, dur profile.Time, name int32, cat uint8, id, count int32) {
	out.Level = append(out.Level, level)
	out.Start = append(out.Start, report.Micros(start))
	out.Dur = append(out.Dur, report.Micros(dur))
	out.Name = append(out.Name, name)
	out.Cat = append(out.Cat, uint16(cat))
	out.ID = append(out.ID, id)
	out.Count = append(out.Count, count)
}

func nameIndex(p *profile.Profile, out *report.FlameBoxes, names map[profile.StringID]int32, s profile.StringID) int32 {
	if k, ok := names[s]; ok {
		return k
	}
	k := int32(len(out.Names))
	names[s] = k
	out.Names = append(out.Names, p.Str(s))
	return k
}

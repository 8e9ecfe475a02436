package server

import (
	"context"
	"slices"
	"sort"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// flameIndex is a thread's flame chart arranged for viewport queries: per
// level, its entries in start order (entries on a level do not overlap, so
// their ends are in order too). An entry id is an index into the session's
// flame entries of a trace thread, or into its calls for a .cpuprofile
// (whose flame chart is its calls at their depth); nothing is copied but
// the per-level lists.
type flameIndex struct {
	p        *profile.Profile
	cs       []calls.Call
	es       []calls.Entry   // nil for a .cpuprofile
	ev       []profile.Event // the events es index: the profile's, or an event thread's
	levels   [][]int32       // per level, entry ids by start
	cum      [][]int64       // traces only: per level, cum[k] = Σ dur of the first k entries
	frameCat []uint8         // per frame, its category (calls)
	evCat    map[profile.StringID]uint8
	evFrame  map[profile.StringID]profile.FrameID
}

// buildFlame indexes the thread's flame chart: DevTools' entries for a
// trace thread, the calls at their depth for a .cpuprofile.
func buildFlame(ctx context.Context, th *session.Thread) (*flameIndex, error) {
	p := th.Session().Profile
	cs, err := th.Calls(ctx)
	if err != nil {
		return nil, err
	}
	fx := &flameIndex{p: p, cs: cs, ev: p.Events, frameCat: make([]uint8, len(p.Frames))}
	for i := range p.Frames {
		c, _ := category.Frame(p, &p.Frames[i])
		fx.frameCat[i] = uint8(c)
	}
	n := len(cs)
	if th.IsTrace() {
		if fx.es, err = th.FlameEntries(ctx); err != nil {
			return nil, err
		}
		n = len(fx.es)
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
	}
	if err := fx.index(ctx, n); err != nil {
		return nil, err
	}
	return fx, nil
}

// index arranges the n entries by level, in start order, and sums the
// durations of traces.
func (fx *flameIndex) index(ctx context.Context, n int) error {
	for id := range int32(n) {
		l := fx.level(id)
		for int(l) >= len(fx.levels) {
			fx.levels = append(fx.levels, nil)
		}
		fx.levels[l] = append(fx.levels[l], id)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, ids := range fx.levels {
		byStart := func(a, b int32) int { return int(fx.start(a) - fx.start(b)) }
		if !slices.IsSortedFunc(ids, byStart) {
			slices.SortStableFunc(ids, byStart)
		}
	}
	if fx.es != nil {
		fx.cum = make([][]int64, len(fx.levels))
		for l, ids := range fx.levels {
			cum := make([]int64, len(ids)+1)
			for k, id := range ids {
				cum[k+1] = cum[k] + int64(fx.dur(id))
			}
			fx.cum[l] = cum
		}
	}
	return nil
}

func (fx *flameIndex) len() int {
	if fx.es != nil {
		return len(fx.es)
	}
	return len(fx.cs)
}

func (fx *flameIndex) level(id int32) int32 {
	if fx.es != nil {
		return fx.es[id].Level
	}
	return fx.cs[id].Depth
}

func (fx *flameIndex) start(id int32) profile.Time {
	if fx.es != nil {
		return fx.es[id].Start
	}
	return fx.cs[id].Start
}

func (fx *flameIndex) dur(id int32) profile.Time {
	if fx.es != nil {
		return fx.es[id].Dur
	}
	return fx.cs[id].Dur
}

// call returns the call of an entry, or nil for a trace event.
func (fx *flameIndex) call(id int32) *calls.Call {
	if fx.es == nil {
		return &fx.cs[id]
	}
	if c := fx.es[id].Call; c >= 0 {
		return &fx.cs[c]
	}
	return nil
}

// frame returns the entry's frame: its call's, or the session's frame for
// the event's name.
func (fx *flameIndex) frame(id int32) profile.FrameID {
	if c := fx.call(id); c != nil {
		return fx.p.Nodes[c.Node].Frame
	}
	return fx.evFrame[fx.ev[fx.es[id].Event].Name]
}

func (fx *flameIndex) name(id int32) profile.StringID {
	if c := fx.call(id); c != nil {
		return fx.p.NodeFrame(c.Node).Name
	}
	return fx.ev[fx.es[id].Event].Name
}

func (fx *flameIndex) cat(id int32) uint8 {
	if c := fx.call(id); c != nil {
		return fx.frameCat[fx.p.Nodes[c.Node].Frame]
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
	if c := fx.call(id); c != nil {
		return c.Self
	}
	l := fx.level(id) + 1
	if int(l) >= len(fx.levels) {
		return fx.dur(id)
	}
	ids := fx.levels[l]
	s, e := fx.start(id), fx.start(id)+fx.dur(id)
	i := sort.Search(len(ids), func(k int) bool { return fx.start(ids[k]) >= s })
	j := sort.Search(len(ids), func(k int) bool { return fx.start(ids[k]) >= e })
	return max(0, fx.dur(id)-profile.Time(fx.cum[l][j]-fx.cum[l][i]))
}

// boxes returns the boxes to draw for the window [from, to) (absolute ns)
// at width pixels: every entry at least a pixel wide as itself, and runs
// of narrower entries with gaps under a pixel merged into one box (the
// category of the first). origin is subtracted from the times written.
func (fx *flameIndex) boxes(from, to, origin profile.Time, width int) report.FlameBoxes {
	p := fx.p
	out := report.FlameBoxes{FromUs: report.Micros(from - origin), ToUs: report.Micros(to - origin), Levels: len(fx.levels),
		Level: []int32{}, Start: []report.Micros{}, Dur: []report.Micros{}, Name: []int32{}, Cat: []uint16{}, ID: []int32{}, Count: []int32{}, Names: []string{}}
	px := float64(to-from) / float64(width) // ns per pixel
	names := map[profile.StringID]int32{}
	emit := func(level int32, start, dur profile.Time, name int32, cat uint8, id, count int32) {
		out.Level = append(out.Level, level)
		out.Start = append(out.Start, report.Micros(start-origin))
		out.Dur = append(out.Dur, report.Micros(dur))
		out.Name = append(out.Name, name)
		out.Cat = append(out.Cat, uint16(cat))
		out.ID = append(out.ID, id)
		out.Count = append(out.Count, count)
	}
	wide := func(id int32) bool { return float64(fx.dur(id)) >= px }
	for l, ids := range fx.levels {
		// The first entry ending after from.
		i := sort.Search(len(ids), func(k int) bool { id := ids[k]; return fx.start(id)+fx.dur(id) > from })
		for i < len(ids) {
			id := ids[i]
			s := fx.start(id)
			if s >= to {
				break
			}
			if wide(id) {
				emit(int32(l), s, fx.dur(id), nameIndex(p, &out, names, fx.name(id)), fx.cat(id), id, 1)
				i++
				continue
			}
			// A run of narrow entries, each starting within a pixel of the
			// run's end: jump a pixel at a time.
			j, end := i+1, s+fx.dur(id)
			for j < len(ids) {
				lim := end + profile.Time(px)
				k := j + sort.Search(len(ids)-j, func(m int) bool { return fx.start(ids[j+m]) >= lim })
				// A wide entry can only be the last of them (it ends after lim).
				if k > j && wide(ids[k-1]) {
					k--
				}
				if k == j {
					break
				}
				last := ids[k-1]
				end = max(end, fx.start(last)+fx.dur(last))
				j = k
				if k < len(ids) && wide(ids[k]) && fx.start(ids[k]) < lim {
					break
				}
			}
			if j == i+1 {
				emit(int32(l), s, fx.dur(id), nameIndex(p, &out, names, fx.name(id)), fx.cat(id), id, 1)
			} else {
				emit(int32(l), s, end-s, -1, fx.cat(id), -1, int32(j-i))
			}
			i = j
		}
	}
	return out
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

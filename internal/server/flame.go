package server

import (
	"context"
	"slices"
	"sort"

	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// flameIndex is a thread's flame chart arranged for viewport queries: per
// level, its entries in start order (entries on a level do not overlap, so
// their ends are in order too), with prefix sums of their durations for
// self times.
type flameIndex struct {
	levels [][]int32      // per level, entry ids by start
	cum    [][]int64      // per level, cum[k] = Σ dur of the first k entries
	start  []profile.Time // per entry, absolute ns
	dur    []profile.Time
	name   []profile.StringID
	cat    []uint8
	level  []int32
	frame  []profile.FrameID // the entry's frame (a call's, or the event name's)
	self   []profile.Time    // a call's self time; −1 for an event (computed from children)
}

// buildFlame indexes the thread's flame chart: DevTools' entries for a
// trace thread, the calls at their depth for a .cpuprofile.
func buildFlame(ctx context.Context, th *session.Thread) (*flameIndex, error) {
	p := th.Session().Profile
	cs, err := th.Calls(ctx)
	if err != nil {
		return nil, err
	}
	fx := &flameIndex{}
	add := func(level int32, start, dur profile.Time, name profile.StringID, f profile.FrameID, cat profile.CategoryID, self profile.Time) {
		id := int32(len(fx.start))
		for int(level) >= len(fx.levels) {
			fx.levels = append(fx.levels, nil)
		}
		fx.levels[level] = append(fx.levels[level], id)
		fx.start = append(fx.start, start)
		fx.dur = append(fx.dur, dur)
		fx.name = append(fx.name, name)
		fx.cat = append(fx.cat, uint8(cat))
		fx.level = append(fx.level, level)
		fx.frame = append(fx.frame, f)
		fx.self = append(fx.self, self)
	}
	catOf := map[profile.FrameID]profile.CategoryID{}
	frameCat := func(f profile.FrameID) profile.CategoryID {
		c, ok := catOf[f]
		if !ok {
			c, _ = category.Frame(p, &p.Frames[f])
			catOf[f] = c
		}
		return c
	}
	if !th.IsTrace() {
		for _, c := range cs {
			f := p.Nodes[c.Node].Frame
			add(c.Depth, c.Start, c.Dur, p.Frames[f].Name, f, frameCat(f), c.Self)
		}
	} else {
		es, err := th.FlameEntries(ctx)
		if err != nil {
			return nil, err
		}
		evCat := map[profile.StringID]profile.CategoryID{}
		evFrame := eventFrames(p)
		for _, e := range es {
			if e.Call >= 0 {
				c := &cs[e.Call]
				f := p.Nodes[c.Node].Frame
				add(e.Level, e.Start, e.Dur, p.Frames[f].Name, f, frameCat(f), c.Self)
				continue
			}
			ev := &p.Events[e.Event]
			cat, ok := evCat[ev.Name]
			if !ok {
				c, _, found := category.Event(p, p.Str(ev.Name))
				if !found {
					c = profile.CatOther
				}
				evCat[ev.Name], cat = c, c
			}
			add(e.Level, e.Start, e.Dur, ev.Name, evFrame[ev.Name], cat, -1)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fx.cum = make([][]int64, len(fx.levels))
	for l, ids := range fx.levels {
		if !slices.IsSortedFunc(ids, func(a, b int32) int { return int(fx.start[a] - fx.start[b]) }) {
			slices.SortStableFunc(ids, func(a, b int32) int { return int(fx.start[a] - fx.start[b]) })
		}
		cum := make([]int64, len(ids)+1)
		for k, id := range ids {
			cum[k+1] = cum[k] + int64(fx.dur[id])
		}
		fx.cum[l] = cum
	}
	return fx, nil
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
	if fx.self[id] >= 0 {
		return fx.self[id]
	}
	l := fx.level[id] + 1
	if int(l) >= len(fx.levels) {
		return fx.dur[id]
	}
	ids := fx.levels[l]
	s, e := fx.start[id], fx.start[id]+fx.dur[id]
	i := sort.Search(len(ids), func(k int) bool { return fx.start[ids[k]] >= s })
	j := sort.Search(len(ids), func(k int) bool { return fx.start[ids[k]] >= e })
	return max(0, fx.dur[id]-profile.Time(fx.cum[l][j]-fx.cum[l][i]))
}

// boxes returns the boxes to draw for the window [from, to) (absolute ns)
// at width pixels: every entry at least a pixel wide, and runs of narrower
// entries within a pixel merged into one box. origin is subtracted from
// the times written.
func (fx *flameIndex) boxes(p *profile.Profile, from, to, origin profile.Time, width int) report.FlameBoxes {
	out := report.FlameBoxes{FromUs: report.Micros(from - origin), ToUs: report.Micros(to - origin), Levels: len(fx.levels),
		Level: []int32{}, Start: []report.Micros{}, Dur: []report.Micros{}, Name: []int32{}, Cat: []uint16{}, ID: []int32{}, Count: []int32{}, Names: []string{}}
	px := float64(to-from) / float64(width) // ns per pixel
	names := map[profile.StringID]int32{}
	emit := func(level int32, start, dur profile.Time, name int32, cat uint8, id, count int32) {
		out.Cat = append(out.Cat, uint16(cat))
		out.Level = append(out.Level, level)
		out.Start = append(out.Start, report.Micros(start-origin))
		out.Dur = append(out.Dur, report.Micros(dur))
		out.Name = append(out.Name, name)
		out.ID = append(out.ID, id)
		out.Count = append(out.Count, count)
	}
	for l, ids := range fx.levels {
		// The first entry ending after from.
		i := sort.Search(len(ids), func(k int) bool { id := ids[k]; return fx.start[id]+fx.dur[id] > from })
		for i < len(ids) {
			id := ids[i]
			s := fx.start[id]
			if s >= to {
				break
			}
			if float64(fx.dur[id]) >= px {
				emit(int32(l), s, fx.dur[id], nameIndex(p, &out, names, fx.name[id]), fx.cat[id], id, 1)
				i++
				continue
			}
			// The entries that start within a pixel of s.
			lim := s + profile.Time(px)
			j := i + 1 + sort.Search(len(ids)-i-1, func(k int) bool { return fx.start[ids[i+1+k]] >= lim })
			// A wide entry can only be the last of them (it ends after lim).
			if j > i+1 && float64(fx.dur[ids[j-1]]) >= px {
				j--
			}
			if j == i+1 {
				emit(int32(l), s, fx.dur[id], nameIndex(p, &out, names, fx.name[id]), fx.cat[id], id, 1)
				i++
				continue
			}
			last := ids[j-1]
			end := max(fx.start[last]+fx.dur[last], s+fx.dur[id])
			emit(int32(l), s, end-s, -1, fx.cat[id], -1, int32(j-i))
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

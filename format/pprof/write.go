// Package pprof writes and reads pprof profiles (profile.proto, gzipped), the
// format of `go tool pprof`, through github.com/google/pprof/profile; no
// protobuf is written by hand.
//
// Spec: https://github.com/google/pprof/blob/main/proto/profile.proto.
//
// Write maps jsprof's model to pprof as follows:
//
//   - The input is each thread's time as weighted stacks
//     (profile.ThreadStacks), as the analysis session computes them under a
//     view and transforms: the nanoseconds add up to jsprof's self and total
//     times exactly (flat and cum are the self and total of `jsprof top`).
//     A stack with no frames (idle or out-of-view time) is not written.
//   - Sample types are [samples/count, cpu/nanoseconds]; the default is cpu.
//   - One pprof Sample per distinct stack and thread (identical stacks are
//     aggregated): values [number of samples, ns], the ns the stacks'
//     weights and the count the thread's samples (of distinct times) that
//     fall in those stacks' spans; locations leaf first.
//   - One Function per distinct (name, URL, line) and kind: Filename is the
//     URL and StartLine the 1-based line (0 when unknown). Anonymous
//     functions are named "(anonymous)", as DevTools shows them. A trace
//     event on the stack (a frame of kind profile.KindEvent, such as Layout
//     or FunctionCall) is a function of its own, with no file.
//   - One Location per jsprof frame, with one Line: the function, the
//     1-based line and the 1-based column (0 when unknown). jsprof lines and
//     columns are 0-based with −1 for unknown; pprof's are 1-based with 0.
//   - Labels: "thread" is the thread's name (else "tid N") on every sample;
//     when several threads are written, numeric labels "pid" and "tid" say
//     which thread.
//   - PeriodType is cpu/nanoseconds and Period the median interval between
//     the written threads' samples; DurationNanos is the span the stacks
//     cover (the window or range, idle time included). TimeNanos is 0,
//     because V8 and trace times are monotonic clocks (TimeTicks), not Unix
//     time.
//
// In pprof's terms, jsprof's self time is "flat" and its total time "cum".
//
// Parse reads any pprof profile (gzipped or not) back into the model; see
// Parse for how it lays out sample times, which pprof does not record.
package pprof

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/profile"
)

// Options controls Write. The zero value is the default. The threads, view
// and transforms are those the stacks were computed under.
type Options struct {
	// View names the view of the stacks; a name other than "" and "all"
	// is written in a comment ("view: js").
	View string
}

// funcKey identifies a pprof Function.
type funcKey struct {
	name, url profile.StringID
	line      int32
	event     bool
}

// writer builds a pprof profile from weighted stacks.
type writer struct {
	p       *profile.Profile
	out     *pprofile.Profile
	funcs   map[funcKey]*pprofile.Function
	locs    []*pprofile.Location // by FrameID; nil until used
	samples map[string]*pprofile.Sample
	key     []byte
	stack   []*pprofile.Location
}

// Write writes the stacks of p's threads as a gzipped pprof profile (see
// the package documentation for the mapping). p is the profile the stacks'
// frames and threads index (for a session, its Profile, which has the
// trace events' frames); it is not modified.
func Write(w io.Writer, p *profile.Profile, stacks []profile.ThreadStacks, opts Options) error {
	out, err := convert(p, stacks, opts)
	if err != nil {
		return err
	}
	if err := out.CheckValid(); err != nil {
		return fmt.Errorf("building pprof profile: %w", err)
	}
	if err := out.Write(w); err != nil {
		return fmt.Errorf("writing pprof profile: %w", err)
	}
	return nil
}

// convert builds the pprof profile.
func convert(p *profile.Profile, stacks []profile.ThreadStacks, opts Options) (*pprofile.Profile, error) {
	for _, ts := range stacks {
		if ts.Thread < 0 || int(ts.Thread) >= len(p.Threads) {
			return nil, fmt.Errorf("no thread %d; the profile has %d", ts.Thread, len(p.Threads))
		}
	}
	wr := &writer{
		p: p,
		out: &pprofile.Profile{
			SampleType:        []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			DefaultSampleType: "cpu",
			PeriodType:        &pprofile.ValueType{Type: "cpu", Unit: "nanoseconds"},
			Comments:          []string{"source format: " + p.Format},
		},
		locs:    make([]*pprofile.Location, len(p.Frames)),
		funcs:   map[funcKey]*pprofile.Function{},
		samples: map[string]*pprofile.Sample{},
	}
	if opts.View != "" && opts.View != "all" {
		wr.out.Comments = append(wr.out.Comments, "view: "+opts.View)
	}
	var intervals []profile.Time
	var start, end profile.Time
	spanned := false
	for ti, ts := range stacks {
		th := &p.Threads[ts.Thread]
		times := p.Samples.Time[th.Samples.Start:th.Samples.End] // sorted
		for i := 1; i < len(times); i++ {
			if d := times[i] - times[i-1]; d > 0 {
				intervals = append(intervals, d)
			}
		}
		name := th.Name
		if name == "" {
			name = fmt.Sprintf("tid %d", th.TID)
		}
		var num map[string][]int64
		if len(stacks) > 1 {
			num = map[string][]int64{"pid": {th.PID}, "tid": {th.TID}}
		}
		if ts.Stacks == nil {
			continue
		}
		next := 0 // the first sample time not yet passed
		for s := range ts.Stacks {
			if s.Weight <= 0 {
				continue
			}
			from, to := s.Time, s.Time+s.Weight
			if !spanned || from < start {
				start = from
			}
			if !spanned || to > end {
				end = to
			}
			spanned = true
			// The samples of distinct times in [from, to).
			for next < len(times) && times[next] < from {
				next++
			}
			var count int64
			for next < len(times) && times[next] < to {
				if next == 0 || times[next] != times[next-1] {
					count++
				}
				next++
			}
			if len(s.Frames) == 0 {
				continue // idle or out-of-view time
			}
			if err := wr.add(ti, s.Frames, count, s.Weight, name, num); err != nil {
				return nil, fmt.Errorf("thread %d: %w", ts.Thread, err)
			}
		}
	}
	if len(intervals) > 0 {
		slices.Sort(intervals)
		wr.out.Period = int64(intervals[len(intervals)/2])
	}
	wr.out.DurationNanos = int64(end - start)
	return wr.out, nil
}

// add adds one stack (root first) of the ti'th written thread.
func (wr *writer) add(ti int, frames []profile.FrameID, count int64, weight profile.Time, thread string, num map[string][]int64) error {
	wr.stack = wr.stack[:0]
	wr.key = binary.AppendUvarint(wr.key[:0], uint64(ti))
	for i := len(frames) - 1; i >= 0; i-- {
		f := frames[i]
		if f < 0 || int(f) >= len(wr.p.Frames) {
			return fmt.Errorf("stack frame %d out of range; the profile has %d frames", f, len(wr.p.Frames))
		}
		loc := wr.location(f)
		wr.stack = append(wr.stack, loc)
		wr.key = binary.AppendUvarint(wr.key, loc.ID)
	}
	if smp, ok := wr.samples[string(wr.key)]; ok {
		smp.Value[0] += count
		smp.Value[1] += int64(weight)
		return nil
	}
	smp := &pprofile.Sample{
		Location: slices.Clone(wr.stack),
		Value:    []int64{count, int64(weight)},
		Label:    map[string][]string{"thread": {thread}},
		NumLabel: num,
	}
	wr.samples[string(wr.key)] = smp
	wr.out.Sample = append(wr.out.Sample, smp)
	return nil
}

// location returns the Location of frame f, adding it and its Function if
// needed.
func (wr *writer) location(f profile.FrameID) *pprofile.Location {
	if loc := wr.locs[f]; loc != nil {
		return loc
	}
	fr := &wr.p.Frames[f]
	k := funcKey{fr.Name, fr.URL, fr.Line, fr.Kind == profile.KindEvent}
	fn := wr.funcs[k]
	if fn == nil {
		name := wr.p.Str(fr.Name)
		if name == "" {
			name = "(anonymous)"
		}
		// SystemName stays empty: pprof's demangler takes a name with
		// brackets for C++ when SystemName equals Name, and strips its
		// "parameters" (RegExp: \b(\d+)\b would become RegExp: \b\b).
		fn = &pprofile.Function{
			ID:        uint64(len(wr.out.Function) + 1),
			Name:      name,
			Filename:  wr.p.Str(fr.URL),
			StartLine: oneBased(fr.Line),
		}
		wr.funcs[k] = fn
		wr.out.Function = append(wr.out.Function, fn)
	}
	loc := &pprofile.Location{
		ID:   uint64(len(wr.out.Location) + 1),
		Line: []pprofile.Line{{Function: fn, Line: oneBased(fr.Line), Column: oneBased(fr.Column)}},
	}
	wr.locs[f] = loc
	wr.out.Location = append(wr.out.Location, loc)
	return loc
}

// oneBased converts a 0-based jsprof line or column (−1 unknown) to pprof's
// 1-based form (0 unknown).
func oneBased(x int32) int64 {
	if x < 0 {
		return 0
	}
	return int64(x) + 1
}

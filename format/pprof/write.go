// Package pprof writes and reads pprof profiles (profile.proto, gzipped), the
// format of `go tool pprof`, through github.com/google/pprof/profile; no
// protobuf is written by hand.
//
// Spec: https://github.com/google/pprof/blob/main/proto/profile.proto.
//
// Write maps jsprof's model to pprof as follows:
//
//   - Sample types are [samples/count, cpu/nanoseconds]; the default is cpu.
//     A sample's stack is its weighted stack under a view (analysis/view:
//     DevTools' reconstruction, each sample lasting until the next one), so
//     the nanoseconds add up to jsprof's self and total times exactly.
//   - One pprof Sample per distinct stack and thread (identical stacks are
//     aggregated): values [number of samples, ns]; locations leaf first.
//   - One Function per distinct (name, URL, line): Filename is the URL and
//     StartLine the 1-based line (0 when unknown). Anonymous functions are
//     named "(anonymous)", as DevTools shows them.
//   - One Location per jsprof frame, with one Line: the function, the
//     1-based line and the 1-based column (0 when unknown). jsprof lines and
//     columns are 0-based with −1 for unknown; pprof's are 1-based with 0.
//   - Labels: "thread" is the thread's name on every sample; when several
//     threads are written, numeric labels "pid" and "tid" say which thread.
//   - PeriodType is cpu/nanoseconds and Period the median sample interval;
//     DurationNanos is the sampled span. TimeNanos is 0, because V8 and
//     trace times are monotonic clocks (TimeTicks), not Unix time.
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
	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
)

// Options controls Write. The zero value writes every thread under the
// "all" view with no transform.
type Options struct {
	// Threads are the threads to write; nil means all.
	Threads []profile.ThreadID
	// View selects the frames of each stack and the transforms applied to it.
	View view.Options
}

// funcKey identifies a pprof Function.
type funcKey struct {
	name, url profile.StringID
	line      int32
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

// Write writes the selected threads of p as a gzipped pprof profile (see the
// package documentation for the mapping). Stacks are built by view.Stacks
// under opts.View, which may add event frames to p.
//
// The sample count of a stack counts the samples of non-zero duration that
// the view keeps; a sample left with no frame in the view is written with no
// location, so that pprof's total is still the sampled time.
func Write(w io.Writer, p *profile.Profile, opts Options) error {
	out, err := convert(p, opts)
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
func convert(p *profile.Profile, opts Options) (*pprofile.Profile, error) {
	threads := opts.Threads
	if threads == nil {
		threads = make([]profile.ThreadID, len(p.Threads))
		for i := range threads {
			threads[i] = profile.ThreadID(i)
		}
	}
	for _, t := range threads {
		if t < 0 || int(t) >= len(p.Threads) {
			return nil, fmt.Errorf("no thread %d; the profile has %d", t, len(p.Threads))
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
		funcs:   map[funcKey]*pprofile.Function{},
		samples: map[string]*pprofile.Sample{},
	}
	if opts.View.View != view.All {
		wr.out.Comments = append(wr.out.Comments, "view: "+opts.View.View.String())
	}
	var intervals []profile.Time
	var start, end profile.Time
	spanned := false
	for ti, t := range threads {
		tl, err := calls.NewTimeline(p, t)
		if err != nil {
			return nil, fmt.Errorf("thread %d: %w", t, err)
		}
		n := len(tl.Samples)
		if n == 0 {
			continue
		}
		// Intervals between real samples (the last sample's end is
		// extrapolated, so it is not one).
		for i := 1; i < n; i++ {
			if d := tl.Times[i] - tl.Times[i-1]; d > 0 {
				intervals = append(intervals, d)
			}
		}
		// The sampled span, clipped to the view's range.
		from, to := tl.Times[0]+opts.View.From, tl.Times[n]
		if opts.View.To > 0 {
			to = min(to, tl.Times[0]+opts.View.To)
		}
		if from < to {
			if !spanned || from < start {
				start = from
			}
			if !spanned || to > end {
				end = to
			}
			spanned = true
		}
		th := &p.Threads[t]
		name := th.Name
		if name == "" {
			name = fmt.Sprintf("tid %d", th.TID)
		}
		var num map[string][]int64
		if len(threads) > 1 {
			num = map[string][]int64{"pid": {th.PID}, "tid": {th.TID}}
		}
		view.Stacks(tl, opts.View, func(s view.Stack) {
			wr.add(ti, s, name, num)
		})
	}
	if len(intervals) > 0 {
		slices.Sort(intervals)
		wr.out.Period = int64(intervals[len(intervals)/2])
	}
	wr.out.DurationNanos = int64(end - start)
	return wr.out, nil
}

// add adds one weighted stack of the ti'th written thread.
func (wr *writer) add(ti int, s view.Stack, thread string, num map[string][]int64) {
	wr.stack = wr.stack[:0]
	wr.key = binary.AppendUvarint(wr.key[:0], uint64(ti))
	for i := len(s.Frames) - 1; i >= 0; i-- {
		loc := wr.location(s.Frames[i])
		wr.stack = append(wr.stack, loc)
		wr.key = binary.AppendUvarint(wr.key, loc.ID)
	}
	if smp, ok := wr.samples[string(wr.key)]; ok {
		smp.Value[0]++
		smp.Value[1] += int64(s.Weight)
		return
	}
	smp := &pprofile.Sample{
		Location: slices.Clone(wr.stack),
		Value:    []int64{1, int64(s.Weight)},
		Label:    map[string][]string{"thread": {thread}},
		NumLabel: num,
	}
	wr.samples[string(wr.key)] = smp
	wr.out.Sample = append(wr.out.Sample, smp)
}

// location returns the Location of frame f, adding it and its Function if
// needed.
func (wr *writer) location(f profile.FrameID) *pprofile.Location {
	for len(wr.locs) < len(wr.p.Frames) { // view.Stacks may add frames
		wr.locs = append(wr.locs, nil)
	}
	if loc := wr.locs[f]; loc != nil {
		return loc
	}
	fr := &wr.p.Frames[f]
	k := funcKey{fr.Name, fr.URL, fr.Line}
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

// Package push prepares profiles for fleet profiling backends (push/pyroscope):
// one thread selection of a session as a pprof profile with its wall-clock
// start and duration, within the backend's limits.
//
// A backend ingests pprof (profile.proto): jsprof's numbers travel as the
// session computes them (format/pprof: flat and cum are the self and total
// of `jsprof top`), so what a fleet backend aggregates is DevTools-exact JS
// time, trace events and all.
package push

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// Limits are a backend's limits on one profile; zero means no limit.
// Pyroscope's defaults are DefaultLimits.
type Limits struct {
	// MaxSamples is the largest number of pprof samples (distinct stacks).
	MaxSamples int
	// MaxDepth is the deepest stack, in frames.
	MaxDepth int
	// MaxBytes is the largest profile, in bytes (gzipped pprof).
	MaxBytes int
}

// DefaultLimits are Pyroscope's default per-tenant limits
// (max_profile_stacktrace_samples, max_profile_stacktrace_depth,
// max_profile_size_bytes).
var DefaultLimits = Limits{MaxSamples: 16000, MaxDepth: 1000, MaxBytes: 4 << 20}

// ErrTooLarge reports a profile over Limits.MaxBytes after trimming.
var ErrTooLarge = errors.New("profile too large for the backend")

// Options controls Prepare. The zero value prepares every thread under
// DevTools' tree, with no limits, timed from the profile.
type Options struct {
	// Threads selects the threads (session.Session.Select); "" is all.
	Threads string
	// View holds the view, range and transforms.
	View view.Options
	// Limits are the backend's limits; what exceeds them is trimmed.
	Limits Limits
	// Start, if not zero, is the profile's wall-clock start.
	Start time.Time
}

// Profile is a profile ready to push.
type Profile struct {
	// PProf is the gzipped pprof profile (TimeNanos and DurationNanos set).
	PProf []byte
	// Start is the wall-clock start; StartFrom says where it came from.
	Start     time.Time
	StartFrom string
	Duration  time.Duration
	// Total is the time of the samples (ns) and Samples their number.
	Total   int64
	Samples int
	// Trimmed says what was cut to fit the limits ("" nothing).
	Trimmed string
}

// Prepare writes the session's selected threads as a pprof profile for a
// backend:
//
//  1. The threads' stacks under opts.View, written by format/pprof.
//  2. The start: opts.Start; else the profile's own start when its clock is
//     Unix time (XS, traces of some tools); else, as V8 clocks are
//     monotonic, the input file's modification time (Node writes the file
//     when the profile ends) less the duration; else now less the duration.
//  3. Limits: stacks deeper than MaxDepth keep their innermost frames under
//     a "(truncated)" frame; past MaxSamples the lightest stacks become one
//     "(other)" sample. Totals are unchanged.
func Prepare(ctx context.Context, s *session.Session, opts Options) (*Profile, error) {
	ths, err := s.Select(opts.Threads)
	if err != nil {
		return nil, err
	}
	stacks := make([]profile.ThreadStacks, len(ths))
	var first, last profile.Time
	for i, th := range ths {
		if stacks[i], err = th.PathStacks(ctx, opts.View); err != nil {
			return nil, err
		}
		from, to, err := th.Window(ctx)
		if err != nil {
			return nil, err
		}
		if i == 0 || from < first {
			first = from
		}
		last = max(last, to)
	}
	var buf bytes.Buffer
	if err := pprof.Write(&buf, s.Profile, stacks, pprof.Options{View: opts.View.View.String()}); err != nil {
		return nil, err
	}
	pp, err := pprofile.ParseData(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("reading back the pprof profile: %w", err)
	}
	out := &Profile{Duration: time.Duration(pp.DurationNanos)}
	if out.Duration <= 0 {
		out.Duration = time.Duration(last - first)
	}
	switch {
	case !opts.Start.IsZero():
		out.Start, out.StartFrom = opts.Start, "given"
	case unixNanos(first):
		out.Start, out.StartFrom = time.Unix(0, int64(first)), "the profile's clock"
	default:
		if st, err := os.Stat(s.Name); err == nil && s.Name != "-" {
			out.Start, out.StartFrom = st.ModTime().Add(-out.Duration), "the file's modification time less the duration"
		} else {
			out.Start, out.StartFrom = time.Now().Add(-out.Duration), "now less the duration"
		}
	}
	pp.TimeNanos = out.Start.UnixNano()
	pp.DurationNanos = int64(out.Duration)
	out.Trimmed = trim(pp, opts.Limits)
	for _, smp := range pp.Sample {
		out.Total += smp.Value[1]
	}
	out.Samples = len(pp.Sample)
	if err := pp.CheckValid(); err != nil {
		return nil, fmt.Errorf("trimmed pprof profile: %w", err)
	}
	buf.Reset()
	if err := pp.Write(&buf); err != nil {
		return nil, err
	}
	out.PProf = buf.Bytes()
	if lim := opts.Limits.MaxBytes; lim > 0 && len(out.PProf) > lim {
		return nil, fmt.Errorf("%w: %d bytes of pprof (%d stacks), over the limit of %d; fewer stacks (a lower sample limit, a range, a view or --thread) make it smaller",
			ErrTooLarge, len(out.PProf), out.Samples, lim)
	}
	return out, nil
}

// unixNanos reports whether t (ns) reads as a Unix time between 2001 and
// 2100.
func unixNanos(t profile.Time) bool {
	const y2001, y2100 = 978307200e9, 4102444800e9
	return t >= y2001 && t < y2100
}

// trim fits p within lim and says what it cut.
func trim(p *pprofile.Profile, lim Limits) string {
	var msgs []string
	if lim.MaxDepth > 0 {
		var trunc *pprofile.Location
		deep, cut := 0, 0
		for _, smp := range p.Sample {
			if len(smp.Location) <= lim.MaxDepth {
				continue
			}
			if trunc == nil {
				trunc = newLocation(p, "(truncated)")
			}
			deep++
			cut += len(smp.Location) - (lim.MaxDepth - 1)
			// Leaf first: keep the innermost frames.
			smp.Location = append(smp.Location[:lim.MaxDepth-1:lim.MaxDepth-1], trunc)
		}
		if deep > 0 {
			msgs = append(msgs, fmt.Sprintf("%d stacks deeper than %d frames lost %d outer frames to a \"(truncated)\" frame", deep, lim.MaxDepth, cut))
		}
	}
	if lim.MaxSamples > 0 && len(p.Sample) > lim.MaxSamples {
		// One "(other)" sample per thread (its labels), so that readers
		// keep its time on its thread.
		threads := map[string]bool{}
		for _, smp := range p.Sample {
			threads[labelKey(smp)] = true
		}
		keep := max(1, lim.MaxSamples-len(threads))
		slices.SortStableFunc(p.Sample, func(a, b *pprofile.Sample) int { return cmp.Compare(b.Value[1], a.Value[1]) })
		var loc *pprofile.Location
		others := map[string]*pprofile.Sample{}
		var order []*pprofile.Sample
		var moved int64
		for _, smp := range p.Sample[keep:] {
			k := labelKey(smp)
			o := others[k]
			if o == nil {
				if loc == nil {
					loc = newLocation(p, "(other)")
				}
				o = &pprofile.Sample{Location: []*pprofile.Location{loc}, Value: make([]int64, len(p.SampleType)), Label: smp.Label, NumLabel: smp.NumLabel}
				others[k] = o
				order = append(order, o)
			}
			for i, v := range smp.Value {
				o.Value[i] += v
			}
			moved += smp.Value[1]
		}
		msgs = append(msgs, fmt.Sprintf("%d stacks over the limit of %d samples, the lightest (%.3f ms), became %d \"(other)\" sample(s)",
			len(p.Sample)-keep, lim.MaxSamples, float64(moved)/1e6, len(order)))
		p.Sample = append(p.Sample[:keep], order...)
	}
	if len(msgs) == 0 {
		return ""
	}
	out := msgs[0]
	for _, m := range msgs[1:] {
		out += "; " + m
	}
	return out
}

// labelKey identifies a sample's thread by its labels.
func labelKey(smp *pprofile.Sample) string {
	return fmt.Sprint(smp.Label["thread"], smp.NumLabel["pid"], smp.NumLabel["tid"])
}

// newLocation adds a location of a new function named name.
func newLocation(p *pprofile.Profile, name string) *pprofile.Location {
	fn := &pprofile.Function{ID: uint64(len(p.Function) + 1), Name: name}
	p.Function = append(p.Function, fn)
	loc := &pprofile.Location{ID: uint64(len(p.Location) + 1), Line: []pprofile.Line{{Function: fn}}}
	p.Location = append(p.Location, loc)
	return loc
}

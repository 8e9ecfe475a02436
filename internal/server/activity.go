package server

import (
	"context"
	"github.com/jsprof/jsprof/analysis/category"
	"sort"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// activityIndex is a thread's samples with their categories (the session's
// per-sample categories, which the summary's category times add up): each
// sample lasts until the next, clipped to the thread's window, and its
// stack is its node in DevTools' model (calls.Timeline), whose parents
// give the frames.
type activityIndex struct {
	tl       *calls.Timeline
	cats     []profile.CategoryID // per sample, or per node when perNode
	perNode  bool
	from, to profile.Time // the thread's window
	ncats    int
}

func buildActivity(ctx context.Context, th *session.Thread) (*activityIndex, error) {
	s := th.Session()
	if err := s.Categories(ctx); err != nil {
		return nil, err
	}
	tl, err := th.Timeline(ctx)
	if err != nil {
		return nil, err
	}
	from, to, err := th.Window(ctx)
	if err != nil {
		return nil, err
	}
	cats, _, perNode := category.ForSamples(s.Profile, tl)
	return &activityIndex{tl: tl, cats: cats, perNode: perNode, from: from, to: to, ncats: len(s.Profile.Categories)}, nil
}

// bins returns the share of each category per pixel of [from, to) at width
// pixels, and the stack (a node of the timeline) with the most time in
// each pixel.
func (ax *activityIndex) bins(from, to, origin profile.Time, width int) report.Activity {
	out := report.Activity{FromUs: report.Micros(from - origin), ToUs: report.Micros(to - origin), Shares: make([][]float32, ax.ncats), Stack: make([]int32, width)}
	times := make([][]float64, ax.ncats)
	for c := range times {
		times[c] = make([]float64, width)
	}
	best := make([]float64, width)
	for x := range out.Stack {
		out.Stack[x] = -1
	}
	px := float64(to-from) / float64(width)
	ts := ax.tl.Times
	n := ax.tl.Len()
	lo, hi := max(from, ax.from), min(to, ax.to)
	i := sort.Search(n, func(k int) bool { return ax.tl.TimeAt(k+1) > lo })
	samples := ax.tl.Cursor(i)
	// The times in order (Times.At is not inlined); at is TimeAt.
	tc := ts.Cursor()
	at := func(i int) profile.Time {
		if i == ts.Len() {
			return ax.tl.End
		}
		return tc.At(i)
	}
	for ; i < n && tc.At(i) < hi; i++ {
		s, e := max(tc.At(i), lo), min(at(i+1), hi)
		if e <= s {
			continue
		}
		a, b := float64(s-from)/px, float64(e-from)/px
		node, k := samples.At(i), i
		if ax.perNode {
			k = int(node)
		}
		c := int(ax.cats[k])
		if c >= ax.ncats {
			continue
		}
		for x := int(a); x < width && float64(x) < b; x++ {
			l, r := max(a, float64(x)), min(b, float64(x+1))
			if r <= l {
				continue
			}
			times[c][x] += r - l
			if r-l > best[x] && c != int(profile.CatIdle) {
				best[x] = r - l
				out.Stack[x] = node
			}
		}
	}
	for c := range times {
		out.Shares[c] = make([]float32, width)
		for x, v := range times[c] {
			out.Shares[c][x] = float32(min(1, float64(int(v*1000+0.5))/1000))
		}
	}
	return out
}

// stack returns the frames of a timeline node, outermost first.
func (ax *activityIndex) stack(p *profile.Profile, id int32) []report.Function {
	out := []report.Function{}
	for x := id; x > 0; x = ax.tl.Parent[x] {
		out = append(out, frameFunction(p, p.Nodes[ax.tl.Node[x]].Frame))
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

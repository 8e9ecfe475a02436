package server

import (
	"context"
	"sort"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// activityIndex is a thread's time as categorised stacks in time order
// (session.Thread.Stacks, no view or transform), with the stacks
// hash-consed into a prefix tree so that a pixel can name its stack.
type activityIndex struct {
	start, weight []profile.Time
	cat           []uint8
	stack         []int32
	// The prefix tree: node 0 is the empty stack.
	parent []int32
	frame  []profile.FrameID
	ncats  int
}

func buildActivity(ctx context.Context, th *session.Thread) (*activityIndex, error) {
	ts, err := th.Stacks(ctx, view.Options{})
	if err != nil {
		return nil, err
	}
	ax := &activityIndex{parent: []int32{-1}, frame: []profile.FrameID{-1}, ncats: len(th.Session().Profile.Categories)}
	child := map[[2]int32]int32{}
	n := 0
	for st := range ts.Stacks {
		node := int32(0)
		for _, f := range st.Frames {
			k := [2]int32{node, int32(f)}
			c, ok := child[k]
			if !ok {
				c = int32(len(ax.parent))
				ax.parent = append(ax.parent, node)
				ax.frame = append(ax.frame, f)
				child[k] = c
			}
			node = c
		}
		ax.start = append(ax.start, st.Time)
		ax.weight = append(ax.weight, st.Weight)
		ax.cat = append(ax.cat, uint8(st.Category))
		ax.stack = append(ax.stack, node)
		if n++; n&0xfff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return ax, nil
}

// bins returns the share of each category per pixel of [from, to) at width
// pixels, and the stack with the most time in each pixel.
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
	i := sort.Search(len(ax.start), func(k int) bool { return ax.start[k]+ax.weight[k] > from })
	for ; i < len(ax.start) && ax.start[i] < to; i++ {
		s, e := max(ax.start[i], from), min(ax.start[i]+ax.weight[i], to)
		a, b := float64(s-from)/px, float64(e-from)/px
		c := int(ax.cat[i])
		if c >= ax.ncats {
			continue
		}
		for x := int(a); x < width && float64(x) < b; x++ {
			lo, hi := max(a, float64(x)), min(b, float64(x+1))
			if hi <= lo {
				continue
			}
			times[c][x] += hi - lo
			if hi-lo > best[x] && c != int(profile.CatIdle) {
				best[x] = hi - lo
				out.Stack[x] = ax.stack[i]
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

package profile

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns a deterministic, line-based dump of the whole profile, used
// as the golden format in tests.
func (p *Profile) String() string {
	var b strings.Builder
	q := strconv.Quote
	fmt.Fprintf(&b, "format %s\n", p.Format)
	for i, f := range p.Frames {
		fmt.Fprintf(&b, "frame %d %s url=%s script=%s %d:%d kind=%s cat=%d", i, q(p.Strings[f.Name]), q(p.Strings[f.URL]),
			q(p.Strings[f.ScriptID]), f.Line, f.Column, f.Kind, f.Category)
		if f.CodeType != 0 {
			fmt.Fprintf(&b, " code=%s", p.Strings[f.CodeType])
		}
		b.WriteByte('\n')
	}
	for ti, t := range p.Threads {
		fmt.Fprintf(&b, "thread %d pid=%d tid=%d name=%s profile=%s shape=%s nodes=[%d,%d) samples=[%d,%d) start=%d end=%d hitcounts=%t\n",
			ti, t.PID, t.TID, q(t.Name), q(t.ProfileID), t.Shape, t.Nodes.Start, t.Nodes.End, t.Samples.Start, t.Samples.End,
			t.Start, t.End, t.HitCounts)
	}
	for i, n := range p.Nodes {
		fmt.Fprintf(&b, "node %d id=%d parent=%d frame=%d hits=%d", i, n.InputID, n.Parent, n.Frame, n.HitCount)
		if n.DeoptReason != 0 {
			fmt.Fprintf(&b, " deopt=%s", q(p.Strings[n.DeoptReason]))
		}
		b.WriteByte('\n')
	}
	for _, e := range p.Edges {
		fmt.Fprintf(&b, "edge %d->%d\n", e.From, e.To)
	}
	for _, lt := range p.LineTicks {
		fmt.Fprintf(&b, "ticks node=%d line=%d ticks=%d\n", lt.Node, lt.Line, lt.Ticks)
	}
	s := &p.Samples
	for i := range s.Node {
		fmt.Fprintf(&b, "sample %d node=%d t=%d", i, s.Node[i], s.Time[i])
		if s.Line != nil {
			fmt.Fprintf(&b, " line=%d", s.Line[i])
		}
		if s.Column != nil {
			fmt.Fprintf(&b, " col=%d", s.Column[i])
		}
		b.WriteByte('\n')
	}
	for _, d := range p.Diagnostics {
		fmt.Fprintf(&b, "diag %s %d %s\n", d.Code, d.Count, q(d.Message))
	}
	return b.String()
}

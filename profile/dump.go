package profile

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// String returns a deterministic, line-based dump of the whole profile, used
// as the golden format in tests.
func (p *Profile) String() string {
	var b strings.Builder
	q := strconv.Quote
	fmt.Fprintf(&b, "format %s\n", p.Format)
	if p.Generic {
		b.WriteString("generic\n")
	}
	for i, f := range p.Frames {
		fmt.Fprintf(&b, "frame %d %s url=%s script=%s %d:%d kind=%s cat=%d", i, q(p.Strings[f.Name]), q(p.Strings[f.URL]),
			q(p.Strings[f.ScriptID]), f.Line, f.Column, f.Kind, f.Category)
		if f.CodeType != 0 {
			fmt.Fprintf(&b, " code=%s", p.Strings[f.CodeType])
		}
		b.WriteByte('\n')
	}
	for ti, t := range p.Threads {
		fmt.Fprintf(&b, "thread %d pid=%d tid=%d name=%s profile=%s shape=%s nodes=[%d,%d) samples=[%d,%d) start=%d end=%d hitcounts=%t",
			ti, t.PID, t.TID, q(t.Name), q(t.ProfileID), t.Shape, t.Nodes.Start, t.Nodes.End, t.Samples.Start, t.Samples.End,
			t.Start, t.End, t.HitCounts)
		if t.Events.Len() > 0 || t.ProcessName != "" {
			fmt.Fprintf(&b, " events=[%d,%d) process=%s", t.Events.Start, t.Events.End, q(t.ProcessName))
		}
		if t.DevToolsEnd != 0 {
			fmt.Fprintf(&b, " devtoolsend=%d", t.DevToolsEnd)
		}
		if t.LastSampleEnd != 0 {
			fmt.Fprintf(&b, " lastend=%d", t.LastSampleEnd)
		}
		b.WriteByte('\n')
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
	// By node: the order of LineTicks across nodes is not significant.
	lts := slices.Clone(p.LineTicks)
	slices.SortStableFunc(lts, func(a, b LineTick) int { return cmp.Compare(a.Node, b.Node) })
	for _, lt := range lts {
		fmt.Fprintf(&b, "ticks node=%d line=%d ticks=%d\n", lt.Node, lt.Line, lt.Ticks)
	}
	for _, x := range p.TraceIDs {
		fmt.Fprintf(&b, "traceid thread=%d id=%d node=%d\n", x.Thread, x.ID, x.Node)
	}
	s := &p.Samples
	for i := range s.Node.Len() {
		fmt.Fprintf(&b, "sample %d node=%d t=%d", i, s.Node.At(i), s.Time.At(i))
		if s.Line != nil {
			fmt.Fprintf(&b, " line=%d", s.Line[i])
		}
		if s.Column != nil {
			fmt.Fprintf(&b, " col=%d", s.Column[i])
		}
		b.WriteByte('\n')
	}
	for i, e := range p.Events {
		fmt.Fprintf(&b, "event %d thread=%d %c %s cat=%s start=%d dur=%d", i, e.Thread, e.Phase, q(p.Strings[e.Name]), q(p.Strings[e.Cat]), e.Start, e.Dur)
		if e.SampleTraceID != 0 {
			fmt.Fprintf(&b, " traceid=%d", e.SampleTraceID)
		}
		b.WriteByte('\n')
	}
	for _, d := range p.Diagnostics {
		fmt.Fprintf(&b, "diag %s %d %s\n", d.Code, d.Count, q(d.Message))
	}
	return b.String()
}

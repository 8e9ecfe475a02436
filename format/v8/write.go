package v8

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

// WriteOptions controls Write. The zero value writes thread 0.
type WriteOptions struct {
	Thread profile.ThreadID
	// Edges, for a call-graph thread, are the caller→callee edges to write
	// as children instead of the model's (which may have cycles that VS Code
	// and DevTools cannot read): see analysis/totals.RemoveCycles.
	Edges []profile.Edge
}

// Write writes one thread of p as a .cpuprofile in the current form (nodes
// with children, samples and timeDeltas in µs), keeping the input's node
// ids, call frames, hit counts (when the input had them), deopt reasons and
// positionTicks. A call graph's edges are written as children lists.
func Write(w io.Writer, p *profile.Profile, opts WriteOptions) error {
	if int(opts.Thread) < 0 || int(opts.Thread) >= len(p.Threads) {
		return fmt.Errorf("no thread %d", opts.Thread)
	}
	th := &p.Threads[opts.Thread]
	bw := bufio.NewWriterSize(w, 256<<10)
	start, end := profile.NodeID(th.Nodes.Start), profile.NodeID(th.Nodes.End)
	// Children lists, in node order (the order they were read in).
	first := make([]int32, end-start)
	next := make([]int32, end-start)
	for i := range first {
		first[i], next[i] = -1, -1
	}
	if th.Shape == profile.ShapeCallGraph {
		edges := opts.Edges
		if edges == nil {
			edges = p.Edges
		}
		kids := make([][]profile.NodeID, end-start)
		for _, e := range edges {
			if e.From >= start && e.From < end {
				kids[e.From-start] = append(kids[e.From-start], e.To)
			}
		}
		return writeNodes(bw, p, th, func(n profile.NodeID) []profile.NodeID { return kids[n-start] })
	}
	last := make([]int32, end-start)
	for n := start + 1; n < end; n++ {
		par := p.Nodes[n].Parent - start
		if first[par] < 0 {
			first[par] = int32(n - start)
		} else {
			next[last[par]] = int32(n - start)
		}
		last[par] = int32(n - start)
	}
	var buf []profile.NodeID
	return writeNodes(bw, p, th, func(n profile.NodeID) []profile.NodeID {
		buf = buf[:0]
		for c := first[n-start]; c >= 0; c = next[c] {
			buf = append(buf, start+profile.NodeID(c))
		}
		return buf
	})
}

func writeNodes(bw *bufio.Writer, p *profile.Profile, th *profile.Thread, children func(profile.NodeID) []profile.NodeID) error {
	start, end := profile.NodeID(th.Nodes.Start), profile.NodeID(th.Nodes.End)
	// positionTicks per node.
	ticks := map[profile.NodeID][]profile.LineTick{}
	for _, lt := range p.LineTicks {
		if lt.Node >= start && lt.Node < end {
			ticks[lt.Node] = append(ticks[lt.Node], lt)
		}
	}
	var b []byte
	b = append(b, `{"nodes":[`...)
	for n := start; n < end; n++ {
		nd := &p.Nodes[n]
		f := &p.Frames[nd.Frame]
		if n > start {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, nd.InputID, 10)
		b = append(b, `,"callFrame":`...)
		b = AppendCallFrame(b, p, f)
		if th.HitCounts {
			b = append(b, `,"hitCount":`...)
			b = strconv.AppendInt(b, nd.HitCount, 10)
		}
		if kids := children(n); len(kids) > 0 || n == start {
			b = append(b, `,"children":[`...)
			for i, c := range kids {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, p.Nodes[c].InputID, 10)
			}
			b = append(b, ']')
		}
		if nd.DeoptReason != 0 {
			b = append(b, `,"deoptReason":`...)
			b = jsonw.String(b, p.Str(nd.DeoptReason))
		}
		if lts := ticks[n]; len(lts) > 0 {
			b = append(b, `,"positionTicks":[`...)
			for i, lt := range lts {
				if i > 0 {
					b = append(b, ',')
				}
				b = fmt.Appendf(b, `{"line":%d,"ticks":%d}`, lt.Line, lt.Ticks)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
		if len(b) > 128<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, `],"startTime":`...)
	b = jsonw.Micros(b, int64(th.Start))
	b = append(b, `,"endTime":`...)
	b = jsonw.Micros(b, int64(th.End))
	b = append(b, `,"samples":[`...)
	ss := p.Samples.Node.Slice(int(th.Samples.Start), int(th.Samples.End))
	times := p.Samples.Time.Slice(int(th.Samples.Start), int(th.Samples.End))
	for i, n := range ss.All() {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, p.Nodes[n].InputID, 10)
		if len(b) > 128<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, `],"timeDeltas":[`...)
	prev := th.Start
	ts := times.Cursor()
	for i := range times.Len() {
		t := ts.At(i)
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.Micros(b, int64(t-prev))
		prev = t
		if len(b) > 128<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, "]}\n"...)
	bw.Write(b)
	return bw.Flush()
}

// AppendCallFrame appends frame f as a V8 callFrame object (functionName,
// scriptId, url, 0-based lineNumber and columnNumber, codeType if known).
func AppendCallFrame(b []byte, p *profile.Profile, f *profile.Frame) []byte {
	b = append(b, `{"functionName":`...)
	b = jsonw.String(b, p.Str(f.Name))
	b = append(b, `,"scriptId":`...)
	b = jsonw.String(b, p.Str(f.ScriptID))
	b = append(b, `,"url":`...)
	b = jsonw.String(b, p.Str(f.URL))
	b = fmt.Appendf(b, `,"lineNumber":%d,"columnNumber":%d`, f.Line, f.Column)
	if f.CodeType != 0 {
		b = append(b, `,"codeType":`...)
		b = jsonw.String(b, p.Str(f.CodeType))
	}
	return append(b, '}')
}

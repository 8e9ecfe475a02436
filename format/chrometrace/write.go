package chrometrace

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

// WriteOptions controls Write. The zero value writes every thread.
type WriteOptions struct {
	Threads []profile.ThreadID // nil: all
}

// chunkSamples is how many samples a ProfileChunk carries (V8 flushes every
// 100 samples).
const chunkSamples = 100

// spillBytes is how much of a long event Write holds before writing it.
var spillBytes = 64 << 10 // a variable for tests

// Write writes the profile as a Chrome trace. Read it with
// Options.KeepArgs so that events keep their args: DevTools' handlers
// expect them. Write (JSON object with traceEvents)
// that DevTools reads into the same ProfileCalls: for each thread its
// process and thread names, a Profile event, ProfileChunk events with its
// nodes (parent-linked), samples, time deltas, lines, columns and trace ids,
// and the thread's kept trace events (complete events, with B/E pairs as X,
// and instants with their sample trace id). A trace that DevTools did not
// take as generic gets a TracingStartedInBrowser event naming each process
// (DevTools drops processes without a URL from non-generic traces).
func Write(w io.Writer, p *profile.Profile, opts WriteOptions) error {
	ids := opts.Threads
	if ids == nil {
		for i := range p.Threads {
			ids = append(ids, profile.ThreadID(i))
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var b []byte
	first := true
	begun := false // part of the event in b has been written
	// spill writes what b holds of the event being made.
	spill := func() {
		if !begun && !first {
			bw.WriteString(",\n")
		}
		first, begun = false, true
		bw.Write(b)
		b = b[:0]
	}
	emit := func() {
		spill()
		begun = false
	}
	bw.WriteString(`{"traceEvents":[` + "\n")
	var pids []int64
	var minTs profile.Time
	for k, t := range ids {
		th := &p.Threads[t]
		if !slices.Contains(pids, th.PID) {
			pids = append(pids, th.PID)
		}
		if k == 0 || th.Start < minTs {
			minTs = th.Start
		}
		if th.Events.Len() > 0 && (k == 0 || p.Events[th.Events.Start].Start < minTs) {
			minTs = min(minTs, p.Events[th.Events.Start].Start)
		}
	}
	if !p.Generic && len(ids) > 0 {
		// On a thread of its own (tid −1), so that it adds no event to a
		// sampled thread.
		b = fmt.Appendf(b, `{"name":"TracingStartedInBrowser","ph":"I","s":"t","cat":"disabled-by-default-devtools.timeline","pid":%d,"tid":-1,"ts":`, pids[0])
		b = jsonw.Micros(b, int64(minTs))
		b = append(b, `,"args":{"data":{"frames":[`...)
		for i, pid := range pids {
			if i > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"frame":"jsprof-%d","name":"","processId":%d,"url":"about:blank"}`, pid, pid)
		}
		b = append(b, "]}}}"...)
		emit()
	}
	for k, t := range ids {
		th := &p.Threads[t]
		head := fmt.Appendf(nil, `"pid":%d,"tid":%d`, th.PID, th.TID)
		if th.ProcessName != "" {
			b = fmt.Appendf(b, `{"name":"process_name","ph":"M","cat":"__metadata",%s,"args":{"name":`, head)
			b = jsonw.String(b, th.ProcessName)
			b = append(b, "}}"...)
			emit()
		}
		if th.Name != "" {
			b = fmt.Appendf(b, `{"name":"thread_name","ph":"M","cat":"__metadata",%s,"args":{"name":`, head)
			b = jsonw.String(b, th.Name)
			b = append(b, "}}"...)
			emit()
		}
		id := th.ProfileID
		if id == "" {
			id = "0x" + strconv.Itoa(k+1)
		}
		idJSON := jsonw.String(nil, id)
		b = fmt.Appendf(b, `{"name":"Profile","ph":"P","cat":"disabled-by-default-v8.cpu_profiler","id":%s,%s,"ts":`, idJSON, head)
		b = jsonw.Micros(b, int64(th.Start))
		b = append(b, `,"args":{"data":{"startTime":`...)
		b = jsonw.Micros(b, int64(th.Start))
		b = append(b, "}}}"...)
		emit()
		// Chunks: the nodes with the first, then samples 100 at a time.
		// DevTools takes the profile's end from the first chunk (start + its
		// time deltas): when some prefix of the samples ends exactly at the
		// end DevTools took, the first chunk is that prefix; the last chunk
		// carries the real end as endTime when the two differ.
		ss := p.ThreadSamples(t)
		prev := th.Start
		firstChunk := min(chunkSamples, ss.Node.Len())
		for k := range ss.Time.Len() {
			if st := ss.Time.At(k); st == th.EndAsDevTools() && k+1 <= 4*chunkSamples {
				firstChunk = k + 1
				break
			}
		}
		ts := ss.Time.Cursor() // the times in order, for the deltas
		for c := 0; c == 0 || c < ss.Node.Len(); {
			end := min(c+chunkSamples, ss.Node.Len())
			if c == 0 {
				end = firstChunk
			}
			b = fmt.Appendf(b, `{"name":"ProfileChunk","ph":"P","cat":"disabled-by-default-v8.cpu_profiler","id":%s,%s,"ts":`, idJSON, head)
			b = jsonw.Micros(b, int64(th.Start))
			b = append(b, `,"args":{"data":{"cpuProfile":{`...)
			if c == 0 {
				b = appendNodes(b, p, th, func(x []byte) []byte { b = x; spill(); return b })
				b = append(b, ',')
				b = appendTraceIDs(b, p, t)
			}
			b = append(b, `"samples":[`...)
			for i := c; i < end; i++ {
				if i > c {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, p.Nodes[ss.Node.At(i)].InputID, 10)
			}
			b = append(b, `]},"timeDeltas":[`...)
			for i := c; i < end; i++ {
				if i > c {
					b = append(b, ',')
				}
				t := ts.At(i)
				b = jsonw.Micros(b, int64(t-prev))
				prev = t
			}
			b = append(b, ']')
			if ss.Line != nil {
				b = append(b, `,"lines":[`...)
				for i := c; i < end; i++ {
					if i > c {
						b = append(b, ',')
					}
					b = strconv.AppendInt(b, int64(ss.Line[i]), 10)
				}
				b = append(b, ']')
			}
			if ss.Column != nil {
				b = append(b, `,"columns":[`...)
				for i := c; i < end; i++ {
					if i > c {
						b = append(b, ',')
					}
					b = strconv.AppendInt(b, int64(ss.Column[i]), 10)
				}
				b = append(b, ']')
			}
			if th.DevToolsEnd != 0 && end == ss.Node.Len() {
				// The real end, where DevTools' differs (as Node writes it).
				b = append(b, `,"endTime":`...)
				b = jsonw.Micros(b, int64(th.End))
			}
			b = append(b, "}}}"...)
			emit()
			c = end
			if end == 0 {
				break
			}
		}
		for i := th.Events.Start; i < th.Events.End; i++ {
			e := &p.Events[i]
			b = append(b, `{"name":`...)
			b = jsonw.String(b, p.Str(e.Name))
			b = append(b, `,"cat":`...)
			b = jsonw.String(b, p.Str(e.Cat))
			b = fmt.Appendf(b, `,"ph":"%c",%s,"ts":`, e.Phase, head)
			b = jsonw.Micros(b, int64(e.Start))
			if e.Phase == 'X' {
				b = append(b, `,"dur":`...)
				b = jsonw.Micros(b, int64(e.Dur))
			} else {
				b = append(b, `,"s":"t"`...)
			}
			if p.EventArgs != nil && p.EventArgs[i] != nil {
				b = append(b, `,"args":`...)
				b = append(b, p.EventArgs[i]...)
				b = append(b, '}')
			} else {
				// Without the args (see chrometrace.Options.KeepArgs), an
				// empty data object keeps DevTools' handlers from failing
				// on the commonest ones.
				b = append(b, `,"args":{"data":{`...)
				if e.SampleTraceID != 0 {
					b = fmt.Appendf(b, `"sampleTraceId":%d`, e.SampleTraceID)
				}
				b = append(b, "}}}"...)
			}
			emit()
		}
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// appendNodes appends "nodes":[…] with parent links, as trace chunks have them.
// Every spillBytes it hands b to spill, which writes it out and returns it
// emptied: a profile's nodes are one event, and held whole, 350 k nodes
// grew a 70 MB buffer a quarter at a time (360 MB allocated).
func appendNodes(b []byte, p *profile.Profile, th *profile.Thread, spill func([]byte) []byte) []byte {
	hits := th.HitCounts
	b = append(b, `"nodes":[`...)
	for n := profile.NodeID(th.Nodes.Start); n < profile.NodeID(th.Nodes.End); n++ {
		nd := &p.Nodes[n]
		f := &p.Frames[nd.Frame]
		if len(b) >= spillBytes {
			b = spill(b)
		}
		if n > profile.NodeID(th.Nodes.Start) {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, nd.InputID, 10)
		if nd.Parent != profile.NoNode {
			b = append(b, `,"parent":`...)
			b = strconv.AppendInt(b, p.Nodes[nd.Parent].InputID, 10)
		}
		if hits {
			b = append(b, `,"hitCount":`...)
			b = strconv.AppendInt(b, nd.HitCount, 10)
		}
		b = append(b, `,"callFrame":`...)
		b = v8.AppendCallFrame(b, p, f)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendTraceIDs(b []byte, p *profile.Profile, t profile.ThreadID) []byte {
	b = append(b, `"trace_ids":{`...)
	n := 0
	for _, x := range p.TraceIDs {
		if x.Thread != t {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"%d":%d`, x.ID, p.Nodes[x.Node].InputID)
		n++
	}
	return append(b, "},"...)
}

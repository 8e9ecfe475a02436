package proftest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// WriteLargeTrace writes a Chrome trace (JSON object with traceEvents) of
// about size bytes, deterministic for a seed, shaped like a DevTools
// Performance recording: a renderer main thread with RunTask → FunctionCall
// / Layout / Paint events and a CPU profile (Profile + ProfileChunk events
// of 100 samples from a 400-node tree, as V8 emits them), plus compositor,
// raster and browser threads with events of their own. It returns the number
// of bytes written and of samples.
func WriteLargeTrace(w io.Writer, seed uint64, size int64) (written int64, samples int, err error) {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	out := func(s string) { io.WriteString(cw, s) }
	out(`{"traceEvents":[` + "\n")
	const pid, main, prof = 4242, 259, 77
	meta := []string{
		`{"args":{"name":"Renderer"},"cat":"__metadata","name":"process_name","ph":"M","pid":4242,"tid":0,"ts":0}`,
		`{"args":{"name":"CrRendererMain"},"cat":"__metadata","name":"thread_name","ph":"M","pid":4242,"tid":259,"ts":0}`,
		`{"args":{"name":"Compositor"},"cat":"__metadata","name":"thread_name","ph":"M","pid":4242,"tid":260,"ts":0}`,
		`{"args":{"name":"CompositorTileWorker1"},"cat":"__metadata","name":"thread_name","ph":"M","pid":4242,"tid":261,"ts":0}`,
		`{"args":{"name":"CrBrowserMain"},"cat":"__metadata","name":"thread_name","ph":"M","pid":1000,"tid":1001,"ts":0}`,
		`{"args":{"data":{"frameTreeNodeId":1,"frames":[{"frame":"F1","name":"","processId":4242,"url":"https://example.com/"}],"persistentIds":true}},"cat":"disabled-by-default-devtools.timeline","name":"TracingStartedInBrowser","ph":"I","pid":1000,"s":"t","tid":1001,"ts":1000}`,
	}
	for _, m := range meta {
		out(m + ",\n")
	}
	ts := int64(100_000_000)
	fmt.Fprintf(cw, `{"args":{"data":{"startTime":%d}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"Profile","ph":"P","pid":%d,"tid":%d,"ts":%d},`+"\n", ts, pid, main, ts)
	// A node tree: (root), (program), (idle), (garbage collector), then JS.
	const nodes = 400
	parent := make([]int, nodes+1)
	var nodeJSON []string
	nodeJSON = append(nodeJSON, `{"callFrame":{"codeType":"other","functionName":"(root)","scriptId":0},"id":1}`)
	for i, n := range []string{"(program)", "(idle)", "(garbage collector)"} {
		nodeJSON = append(nodeJSON, fmt.Sprintf(`{"callFrame":{"codeType":"other","functionName":%q,"scriptId":0},"id":%d,"parent":1}`, n, i+2))
		parent[i+2] = 1
	}
	for id := 5; id <= nodes; id++ {
		p := 1
		if id > 5 && r.IntN(8) != 0 {
			p = 5 + r.IntN(id-5)
		}
		parent[id] = p
		nodeJSON = append(nodeJSON, fmt.Sprintf(`{"callFrame":{"codeType":"JS","columnNumber":%d,"functionName":"fn%d","lineNumber":%d,"scriptId":%d,"url":"https://example.com/static/js/app.%d.js"},"id":%d,"parent":%d}`,
			id%80, id, id*3%900, 10+id%7, id%7, id, p))
	}
	children := make([][]int, nodes+1)
	for id := 5; id <= nodes; id++ {
		children[parent[id]] = append(children[parent[id]], id)
	}
	nextNode := 0 // nodes are sent with the first chunks, 10 at a time
	var pendingSamples []int
	var pendingDeltas []int64
	lastSample := ts
	flushChunk := func(now int64) {
		var b []byte
		b = fmt.Appendf(b, `{"args":{"data":{"cpuProfile":{`)
		if nextNode < len(nodeJSON) {
			end := min(nextNode+10, len(nodeJSON))
			b = append(b, `"nodes":[`...)
			for i := nextNode; i < end; i++ {
				if i > nextNode {
					b = append(b, ',')
				}
				b = append(b, nodeJSON[i]...)
			}
			b = append(b, "],"...)
			nextNode = end
		}
		b = append(b, `"samples":[`...)
		for i, s := range pendingSamples {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(s), 10)
		}
		b = append(b, `]},"lines":[`...)
		for i := range pendingSamples {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(r.IntN(300)), 10)
		}
		b = append(b, `],"timeDeltas":[`...)
		for i, d := range pendingDeltas {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, d, 10)
		}
		b = fmt.Appendf(b, `]}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","name":"ProfileChunk","ph":"P","pid":%d,"tid":%d,"ts":%d},`+"\n", pid, prof, now)
		cw.Write(b)
		pendingSamples, pendingDeltas = pendingSamples[:0], pendingDeltas[:0]
	}
	// V8 sends a node no later than the first sample that names it: send
	// them all first, ten per chunk, as at the start of a recording.
	for nextNode < len(nodeJSON) {
		flushChunk(ts)
	}
	sample := func(now int64, node int) {
		pendingSamples = append(pendingSamples, node)
		pendingDeltas = append(pendingDeltas, now-lastSample)
		lastSample = now
		samples++
		if len(pendingSamples) == 100 {
			flushChunk(now)
		}
	}
	names := []string{"FunctionCall", "Layout", "Paint", "UpdateLayoutTree", "ParseHTML", "TimerFire", "EventDispatch", "MinorGC"}
	for cw.n < size {
		// One task on the main thread: RunTask with a few children, and the
		// samples taken during it.
		dur := int64(200 + r.IntN(5000))
		fmt.Fprintf(cw, `{"args":{},"cat":"disabled-by-default-devtools.timeline","dur":%d,"name":"RunTask","ph":"X","pid":%d,"tdur":%d,"tid":%d,"ts":%d,"tts":%d},`+"\n", dur, pid, dur-10, main, ts, ts/2)
		t := ts + 5
		for t < ts+dur-50 {
			d := int64(20 + r.IntN(int(min(ts+dur-t-20, 1500))))
			name := names[r.IntN(len(names))]
			args := `{}`
			if name == "FunctionCall" {
				args = fmt.Sprintf(`{"data":{"frame":"F1","functionName":"handler","lineNumber":%d,"scriptId":"12","url":"https://example.com/static/js/app.3.js"}}`, r.IntN(900))
			}
			fmt.Fprintf(cw, `{"args":%s,"cat":"devtools.timeline","dur":%d,"name":"%s","ph":"X","pid":%d,"tdur":%d,"tid":%d,"ts":%d,"tts":%d},`+"\n", args, d, name, pid, d, main, t, t/2)
			t += d + 5
		}
		// Samples every ~125 µs through the task, then idle until the next.
		// The stack changes little from one sample to the next, as in real
		// profiles: a random walk in the tree.
		node := 5 + r.IntN(nodes-4)
		for st := ts + int64(r.IntN(100)); st < ts+dur; st += int64(100 + r.IntN(50)) {
			switch k := r.IntN(100); {
			case k < 3 && parent[node] > 4:
				node = parent[node]
			case k < 6:
				if c := children[node]; len(c) > 0 {
					node = c[r.IntN(len(c))]
				}
			case k < 7:
				node = 5 + r.IntN(nodes-4)
			}
			sample(st, node)
		}
		gap := int64(100 + r.IntN(3000))
		for st := ts + dur + 50; st < ts+dur+gap; st += 125 {
			sample(st, 3) // (idle)
		}
		// Other threads' work: as busy as the main thread in a real recording.
		for k := int64(0); k < 3+dur/40; k++ {
			tid := 260 + r.IntN(2)
			fmt.Fprintf(cw, `{"args":{"data":{"sourceFrameNumber":%d}},"cat":"disabled-by-default-devtools.timeline,cc","dur":%d,"name":"RasterTask","ph":"X","pid":%d,"tid":%d,"ts":%d},`+"\n", r.IntN(1000), 50+r.IntN(500), pid, tid, ts+int64(r.IntN(int(dur))))
		}
		fmt.Fprintf(cw, `{"args":{},"cat":"toplevel","name":"ThreadControllerImpl::RunTask","ph":"B","pid":1000,"tid":1001,"ts":%d},`+"\n", ts)
		fmt.Fprintf(cw, `{"args":{},"cat":"toplevel","name":"ThreadControllerImpl::RunTask","ph":"E","pid":1000,"tid":1001,"ts":%d},`+"\n", ts+dur/3)
		ts += dur + gap
	}
	if len(pendingSamples) > 0 {
		flushChunk(ts)
	}
	fmt.Fprintf(cw, `{"args":{},"cat":"__metadata","name":"TracingEnd","ph":"I","pid":%d,"s":"g","tid":%d,"ts":%d}`+"\n", pid, main, ts)
	out(`],"metadata":{"source":"jsprof proftest.WriteLargeTrace"}}` + "\n")
	if err := bw.Flush(); err != nil {
		return cw.n, samples, err
	}
	return cw.n, samples, cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// LargeTraces are the large DevTools traces of the shared corpus
// (devtools/NAME.json.gz, 28–44 MB) that the benchmarks of a trace
// thread's analyses run on (bench/compare.sh times them whole):
// nytimes-bad-mobile-viewport is the one at the edge of the time target,
// its one thread of 50 k samples and 99 k events.
var LargeTraces = []string{"wrong-main-frame-bug", "web-dev-screenshot-source-ids", "shift-attribution", "cls-no-nav", "nytimes-bad-mobile-viewport"}

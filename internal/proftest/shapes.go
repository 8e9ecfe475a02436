package proftest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
)

// A Shape is a kind of real-world .cpuprofile that stresses a different part
// of the analysis; ShapedCPUProfile writes one.
type Shape struct {
	Name string
	// Nodes and Samples are the sizes written.
	Nodes, Samples int
	// Interval is the sampling interval in µs.
	Interval int
	// MaxDepth bounds the call stack.
	MaxDepth int
	// Functions is the number of distinct functions.
	Functions int
}

// Shapes are the generated workloads of the performance benchmarks, sized
// like the real files they stand for (issue "Twenty times DevTools").
var Shapes = []Shape{
	// A TypeScript type-check: deep recursive stacks, a new call path at
	// almost every sample, 100 µs sampling (about 35 MB).
	{Name: "typescript", Nodes: 160_000, Samples: 400_000, Interval: 100, MaxDepth: 400, Functions: 6_000},
	// A big web app: many distinct call paths (about 70 MB).
	{Name: "many-nodes", Nodes: 350_000, Samples: 350_000, Interval: 250, MaxDepth: 120, Functions: 40_000},
	// A long recording at a fine interval: few call paths, millions of
	// samples (about 21 MB).
	{Name: "samples-heavy", Nodes: 3_000, Samples: 3_000_000, Interval: 50, MaxDepth: 40, Functions: 600},
}

// ShapeByName returns the shape with that name.
func ShapeByName(name string) (Shape, bool) {
	for _, s := range Shapes {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// WriteShapedCPUProfile writes a .cpuprofile of the shape to w, scaled by
// scale (1 = the shape's sizes; the node and sample counts are multiplied).
// The samples come from a random walk of a call stack: each sample pops a
// few frames and pushes a few, as a running program does, so consecutive
// samples share most of their stack and the calls DevTools reconstructs are
// long-lived, as in real profiles. Deterministic for a seed.
func WriteShapedCPUProfile(w io.Writer, sh Shape, scale float64, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	nodesMax := max(int(float64(sh.Nodes)*scale), 8)
	samples := max(int(float64(sh.Samples)*scale), 1)

	type node struct {
		parent   int32
		fn       int32 // -1 root, -2 program, -3 idle, -4 gc
		depth    int32
		hits     int32
		children []int32
	}
	ns := []node{{parent: -1, fn: -1}}
	for _, fn := range []int32{-2, -3, -4} {
		ns[0].children = append(ns[0].children, int32(len(ns)))
		ns = append(ns, node{parent: 0, fn: fn, depth: 1})
	}
	// child returns a child of n calling fn, made if new and the node budget
	// allows, else an existing child (or n itself when it has none).
	child := func(n int32, fn int32) int32 {
		for _, c := range ns[n].children {
			if ns[c].fn == fn {
				return c
			}
		}
		if len(ns) >= nodesMax {
			if k := ns[n].children; len(k) > 0 {
				return k[r.IntN(len(k))]
			}
			return -1
		}
		id := int32(len(ns))
		ns = append(ns, node{parent: n, fn: fn, depth: ns[n].depth + 1})
		ns[n].children = append(ns[n].children, id)
		return id
	}
	// Functions call from a small set of likely callees, so that stacks
	// repeat (a real program's call graph is sparse); recursion happens
	// where a function's callee set includes itself.
	nf := sh.Functions
	callee := func(fn int32) int32 {
		if fn < 0 || r.IntN(8) == 0 {
			return int32(r.IntN(nf))
		}
		return (fn*31 + int32(r.IntN(6))*7 + 1) % int32(nf)
	}
	smp := make([]int32, samples)
	cur := int32(4) // a JS stack under (root)
	if len(ns) < nodesMax {
		cur = child(0, 0)
	}
	for i := range smp {
		switch k := r.IntN(100); {
		case k < 3:
			smp[i] = 1 + int32(r.IntN(3)) // (program), (idle), (garbage collector)
			ns[smp[i]].hits++
			continue
		}
		// Pop a few frames (geometric), then push a few.
		for pop := r.IntN(4); pop > 0 && ns[cur].depth > 1; pop-- {
			cur = ns[cur].parent
		}
		for push := r.IntN(4); push > 0 && int(ns[cur].depth) < sh.MaxDepth; push-- {
			if c := child(cur, callee(ns[cur].fn)); c >= 0 {
				cur = c
			}
		}
		if cur < 4 { // never sample (root) itself
			if c := child(0, int32(r.IntN(nf))); c >= 0 {
				cur = c
			} else {
				cur = 4
			}
		}
		smp[i] = cur
		ns[cur].hits++
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	b := make([]byte, 0, 512)
	b = append(b, `{"nodes":[`...)
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `,"callFrame":`...)
		if n.fn < 0 {
			b = appendMetaFrame(b, n.fn)
		} else {
			script := n.fn % 97
			b = fmt.Appendf(b, `{"functionName":"%s%d","scriptId":"%d","url":"file:///work/node_modules/typescript/lib/part%d.js","lineNumber":%d,"columnNumber":%d}`,
				fnNames[n.fn%int32(len(fnNames))], n.fn, script+20, script, n.fn*37%90000, n.fn*13%120)
		}
		b = append(b, `,"hitCount":`...)
		b = strconv.AppendInt(b, int64(n.hits), 10)
		if len(n.children) > 0 {
			b = append(b, `,"children":[`...)
			for j, c := range n.children {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(c+1), 10)
			}
			b = append(b, ']')
		}
		if n.hits > 0 && n.fn >= 0 {
			line := int64(n.fn*37%90000) + 2
			b = append(b, `,"positionTicks":[{"line":`...)
			b = strconv.AppendInt(b, line, 10)
			b = append(b, `,"ticks":`...)
			b = strconv.AppendInt(b, int64(n.hits), 10)
			b = append(b, `}]`...)
		}
		b = append(b, '}')
		if _, err := bw.Write(b); err != nil {
			return err
		}
		b = b[:0]
	}
	start := int64(5_000_000_000)
	deltas := make([]int32, samples)
	end := start
	for i := range deltas {
		d := int32(sh.Interval) + int32(r.IntN(sh.Interval/4+1)) - int32(sh.Interval/8)
		if r.IntN(20000) == 0 {
			d = -int32(r.IntN(30)) // V8's occasional out-of-order sample
		}
		if r.IntN(5000) == 0 {
			d += int32(r.IntN(50 * sh.Interval)) // a pause
		}
		deltas[i] = d
		end += int64(d)
	}
	b = append(b, `],"startTime":`...)
	b = strconv.AppendInt(b, start, 10)
	b = append(b, `,"endTime":`...)
	b = strconv.AppendInt(b, end+int64(sh.Interval), 10)
	b = append(b, `,"samples":[`...)
	for i, s := range smp {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s+1), 10)
		if len(b) > 1<<16 {
			if _, err := bw.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, `],"timeDeltas":[`...)
	for i, d := range deltas {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(d), 10)
		if len(b) > 1<<16 {
			if _, err := bw.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, "]}"...)
	if _, err := bw.Write(b); err != nil {
		return err
	}
	return bw.Flush()
}

var fnNames = []string{"checkExpression", "resolveName", "getTypeOfSymbol", "isTypeRelatedTo",
	"checkSourceElement", "visitNode", "bindChildren", "getApparentType", "structuredTypeRelatedTo",
	"instantiateType", "forEachChild", "getSignaturesOfType", "checkCallExpression", "emitNode"}

// RepeatSamples writes a .cpuprofile with src's nodes whose samples and
// time deltas are src's repeated until the output reaches about size bytes:
// the shape of a long recording of the same program. src is a .cpuprofile
// document as parsed by a JSON decoder into the three fields it needs; its
// raw node array is copied as is.
func RepeatSamples(w io.Writer, nodesJSON []byte, startTime int64, samples, deltas []int64, size int64) (nSamples int, err error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	written := int64(0)
	put := func(b []byte) {
		if err == nil {
			_, err = bw.Write(b)
			written += int64(len(b))
		}
	}
	put([]byte(`{"nodes":`))
	put(nodesJSON)
	// Samples and deltas take about the same room; estimate the repeats.
	var one int64
	for i := range samples {
		one += int64(len(strconv.AppendInt(nil, samples[i], 10)) + len(strconv.AppendInt(nil, deltas[i], 10)) + 2)
	}
	reps := max((size-written)/max(one, 1), 1)
	var total int64
	for _, d := range deltas {
		total += d
	}
	end := startTime + total*reps
	b := fmt.Appendf(nil, `,"startTime":%d,"endTime":%d,"samples":[`, startTime, end)
	put(b)
	b = b[:0]
	// repeated appends vs reps times, comma-separated, writing as it goes.
	repeated := func(vs []int64) {
		for r := range reps {
			for i, v := range vs {
				if r > 0 || i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, v, 10)
				if len(b) > 1<<16 {
					put(b)
					b = b[:0]
				}
			}
		}
	}
	repeated(samples)
	b = append(b, `],"timeDeltas":[`...)
	repeated(deltas)
	b = append(b, "]}"...)
	put(b)
	if err == nil {
		err = bw.Flush()
	}
	return int(reps) * len(samples), err
}

// ShapeBytes returns the .cpuprofile of the named shape at full size, as
// genprofile writes it (seed 1): what bench/shapes.sh times.
func ShapeBytes(tb testing.TB, name string) []byte {
	tb.Helper()
	sh, ok := ShapeByName(name)
	if !ok {
		tb.Fatalf("no shape %q", name)
	}
	var buf bytes.Buffer
	if err := WriteShapedCPUProfile(&buf, sh, 1, 1); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

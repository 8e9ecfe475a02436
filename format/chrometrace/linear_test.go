package chrometrace_test

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/profile"
)

// TestChunkNodesLinear checks that a profile whose nodes come in many
// ProfileChunks, each node with its children list, is read in memory
// linear in its size. Each node's children were appended to the profile's
// one array of children through a growth to the exact size, which copied
// the whole array at every node: 100 k nodes (13 MB) allocated 10 GB and
// took 2 s, a million 1 TB and 2 minutes. It does not run in parallel, to
// measure its allocations alone.
func TestChunkNodesLinear(t *testing.T) {
	const nodes, perChunk = 20_000, 100
	var b strings.Builder
	b.WriteString(`{"traceEvents":[` +
		`{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrRendererMain"}},` +
		`{"name":"Profile","ph":"P","pid":1,"tid":1,"ts":1000,"id":"0x1","args":{"data":{"startTime":1000}}}`)
	for first := 1; first <= nodes; first += perChunk {
		b.WriteString(`,{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":2000,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[`)
		for id := first; id < first+perChunk; id++ {
			if id > first {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":` + strconv.Itoa(id) + `,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1}`)
			// A tree of four children a node, ids in breadth-first order.
			if kid := 4*(id-1) + 2; kid <= nodes {
				b.WriteString(`,"children":[`)
				for k := kid; k < kid+4 && k <= nodes; k++ {
					if k > kid {
						b.WriteByte(',')
					}
					b.WriteString(strconv.Itoa(k))
				}
				b.WriteByte(']')
			}
			b.WriteByte('}')
		}
		b.WriteString(`],"samples":[` + strconv.Itoa(first) + `]},"timeDeltas":[100]}}}`)
	}
	b.WriteString(`]}`)
	data := []byte(b.String())

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := chrometrace.ParseBytes(data, chrometrace.Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(p.Nodes); got != nodes {
		t.Fatalf("got %d nodes, want %d", got, nodes)
	}
	// Linear: about 5 bytes allocated a byte of input. Quadratic: 185 here.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading %d bytes allocated %d, %.1f a byte", len(data), alloc, float64(alloc)/float64(len(data)))
	if alloc > 30*uint64(len(data)) {
		t.Errorf("reading %d bytes (%d nodes in chunks of %d) allocated %d bytes, %.0f a byte", len(data), nodes, perChunk, alloc, float64(alloc)/float64(len(data)))
	}
}

// manyProfiles returns a trace of n sampled threads, each with a Profile
// and one ProfileChunk of a root and a chain of k nodes, k samples and
// traceIDs trace ids.
func manyProfiles(n, k, traceIDs int) []byte {
	var b strings.Builder
	b.WriteString(`[`)
	for p := range n {
		if p > 0 {
			b.WriteByte(',')
		}
		tid, id := strconv.Itoa(p), `"0x`+strconv.FormatInt(int64(p), 16)+`"`
		b.WriteString(`{"name":"Profile","ph":"P","pid":1,"tid":` + tid + `,"ts":1000,"id":` + id + `,"args":{"data":{"startTime":1000}}},`)
		b.WriteString(`{"name":"ProfileChunk","ph":"P","pid":1,"tid":` + tid + `,"ts":1001,"id":` + id + `,"args":{"data":{"cpuProfile":{"nodes":[`)
		b.WriteString(`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}`)
		for i := 2; i <= k+1; i++ {
			b.WriteString(`,{"id":` + strconv.Itoa(i) + `,"parent":` + strconv.Itoa(i-1) + `,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":` + strconv.Itoa(i) + `,"columnNumber":1}}`)
		}
		b.WriteString(`],"samples":[`)
		for i := 2; i <= k+1; i++ {
			if i > 2 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString(`],"trace_ids":{`)
		for j := range traceIDs {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strconv.Itoa(p*traceIDs+j+1) + `":2`)
		}
		b.WriteString(`}},"timeDeltas":[`)
		for i := range k {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("10")
		}
		b.WriteString(`]}}}`)
	}
	b.WriteString(`]`)
	return []byte(b.String())
}

// TestManyProfilesLinear checks that a trace of many sampled threads is
// read in memory and time linear in its size. Each thread's nodes were
// appended to the profile's table grown to the exact size, copying every
// earlier thread's (4 k threads of 10 nodes: 2.6 GB allocated, 1.2 s), its
// trace ids sorted with all the earlier threads' again (4 k threads of 100
// ids: 8.8 s), and checking a trace id's thread scanned every thread. Not
// in parallel, to measure its allocations alone.
func TestManyProfilesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 10 MB trace")
	}
	const threads = 4000
	for _, tc := range []struct {
		name          string
		nodes, traces int
	}{
		{"10 nodes each", 10, 0},
		{"2 nodes and 100 trace ids each", 1, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := manyProfiles(threads, tc.nodes, tc.traces)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, err := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) {
				return chrometrace.ParseBytes(data, chrometrace.Options{})
			})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Threads) != threads || len(p.TraceIDs) != threads*tc.traces {
				t.Fatalf("got %d threads and %d trace ids, want %d and %d", len(p.Threads), len(p.TraceIDs), threads, threads*tc.traces)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			// Linear: 9 to 20 bytes allocated a byte of input (fuzzcheck
			// runs the reader once when it is within its budget).
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("reading %d bytes allocated %d, %.1f a byte", len(data), alloc, float64(alloc)/float64(len(data)))
			if alloc > 60*uint64(len(data)) {
				t.Errorf("reading %d bytes (%d threads) allocated %d bytes, %.0f a byte", len(data), threads, alloc, float64(alloc)/float64(len(data)))
			}
		})
	}
}

// TestTopSamplesWithoutPidLinear checks that the top-level samples of an
// object trace that name no pid are read in time linear in the threads
// and samples: each looked for its tid's pid by scanning every thread.
func TestTopSamplesWithoutPidLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 9 MB trace")
	}
	const n = 80_000
	var b strings.Builder
	b.WriteString(`{"traceEvents":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"thread_name","ph":"M","pid":1,"tid":` + strconv.Itoa(i) + `,"args":{"name":"t"}}`)
	}
	b.WriteString(`],"stackFrames":{"1":{"name":"f","category":"js"}},"samples":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		// Tids no event names: the scan went through every thread.
		b.WriteString(`{"tid":` + strconv.Itoa(n+i%3) + `,"ts":` + strconv.Itoa(i) + `,"sf":"1","weight":1}`)
	}
	b.WriteString(`]}`)
	p, err := fuzzcheck.Parse(t, []byte(b.String()), func(data []byte) (*profile.Profile, error) {
		return chrometrace.ParseBytes(data, chrometrace.Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples.Len() != n {
		t.Fatalf("got %d samples, want %d", p.Samples.Len(), n)
	}
}

// smallReads gives at most n bytes a Read, as a pipe or a gzip stream does.
type smallReads struct {
	r io.Reader
	n int
}

func (s smallReads) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.n)]) }

// TestStreamedLargeEventLinear checks that a trace read as a stream (from
// a pipe or a gzip file) whose one event is large is read in time linear
// in its size: the event was parsed again from its start after each Read,
// which adds 32 to 64 KB (a 12 MB ProfileChunk of 2 M samples from gzip:
// 5.4 s).
func TestStreamedLargeEventLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reads an 8 MB trace")
	}
	const samples = 2 << 20
	var b strings.Builder
	b.WriteString(`[{"name":"Profile","ph":"P","pid":1,"tid":1,"ts":1000,"id":"0x1","args":{"data":{"startTime":1000}}},` +
		`{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":1001,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},` +
		`{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1}}],"samples":[2`)
	b.WriteString(strings.Repeat(",2", samples-1))
	b.WriteString(`]},"timeDeltas":[1`)
	b.WriteString(strings.Repeat(",1", samples-1))
	b.WriteString(`]}}}]`)
	p, err := fuzzcheck.Parse(t, []byte(b.String()), func(data []byte) (*profile.Profile, error) {
		return chrometrace.Parse(smallReads{bytes.NewReader(data), 32 << 10}, chrometrace.Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples.Len() != samples {
		t.Fatalf("got %d samples, want %d", p.Samples.Len(), samples)
	}
}

// TestTopSamplesChainLinear checks that the top-level samples of an object
// trace are given their stacks in time linear in stackFrames: a sample's
// stack was walked up to the root for each new sf, and a chain of 20 k
// frames, a sample on each, took 11 s to read.
func TestTopSamplesChainLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 2 MB trace of 20 k stack frames")
	}
	const n = 20_000
	var b strings.Builder
	b.WriteString(`{"traceEvents":[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"main"}}],"stackFrames":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(`,"` + strconv.Itoa(i) + `":{"name":"f","category":"js","parent":"` + strconv.Itoa(i-1) + `"}`)
		} else {
			b.WriteString(`"0":{"name":"f","category":"js"}`)
		}
	}
	b.WriteString(`},"samples":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"pid":1,"tid":1,"ts":` + strconv.Itoa(i) + `,"sf":"` + strconv.Itoa(i) + `","weight":1}`)
	}
	b.WriteString(`]}`)
	p, err := fuzzcheck.Parse(t, []byte(b.String()), func(data []byte) (*profile.Profile, error) {
		return chrometrace.ParseBytes(data, chrometrace.Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	// One node a frame under the thread's root, a sample on each.
	if len(p.Nodes) != n+1 || p.Samples.Len() != n {
		t.Fatalf("got %d nodes and %d samples, want %d and %d", len(p.Nodes), p.Samples.Len(), n+1, n)
	}
	if last := p.Nodes[p.Samples.Node.At(n-1)]; last.InputID != n {
		t.Errorf("the last sample's node is %d deep, want %d", last.InputID, n)
	}
}

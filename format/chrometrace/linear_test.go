package chrometrace_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/chrometrace"
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

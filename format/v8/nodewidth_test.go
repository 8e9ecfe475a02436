package v8

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestSampleNodeWidths reads profiles whose sample ids and node counts put
// the samples' node column in each width (profile.Nodes), with the arrays
// read ahead and in order: every sample must name the node of its input id,
// and the column must be narrow exactly when every node fits in 2 bytes.
func TestSampleNodeWidths(t *testing.T) {
	defer func(n int) { parallelTailBytes = n }(parallelTailBytes)
	// profile makes a root (id base) with nodes−1 children (ids base+1, …)
	// and the samples given as child indexes.
	profile := func(nodes, base int, samples []int) ([]byte, []int64) {
		var b strings.Builder
		b.WriteString(`{"nodes":[{"id":` + strconv.Itoa(base) + `,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[`)
		for k := 1; k < nodes; k++ {
			if k > 1 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(base + k))
		}
		b.WriteString(`]}`)
		for k := 1; k < nodes; k++ {
			fmt.Fprintf(&b, `,{"id":%d,"callFrame":{"functionName":"f%d","scriptId":"1","url":"a.js","lineNumber":%d,"columnNumber":1}}`, base+k, k, k)
		}
		b.WriteString(`],"startTime":0,"endTime":1000000,"samples":[`)
		ids := make([]int64, len(samples))
		for i, k := range samples {
			if i > 0 {
				b.WriteByte(',')
			}
			ids[i] = int64(base + k)
			b.WriteString(strconv.Itoa(base + k))
		}
		b.WriteString(`],"timeDeltas":[`)
		for i := range samples {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("10")
		}
		b.WriteString(`]}`)
		return []byte(b.String()), ids
	}
	low := []int{1, 2, 3, 2, 1, 9, 9, 4}
	high := []int{1, 69999, 3, 40000, 69998, 2, 2, 1}
	tests := []struct {
		name        string
		nodes, base int
		samples     []int
		narrow      bool
	}{
		{"small ids, few nodes", 10, 1, low, true},        // read in 2 bytes, kept in place
		{"large ids, few nodes", 10, 100_000, low, true},  // read in 4 bytes, kept in 2
		{"small ids, many nodes", 70_000, 1, low, false},  // read in 2 bytes, kept in 4
		{"large ids, many nodes", 70_000, 1, high, false}, // read in 4 bytes, kept in place
		{"ids beyond int32", 10, 1 << 33, low, true},      // read in 8 bytes, kept in 2
	}
	for _, tt := range tests {
		data, ids := profile(tt.nodes, tt.base, tt.samples)
		for _, ahead := range []int{0, 1 << 40} {
			parallelTailBytes = ahead
			p, err := ParseBytes(data, Limits{})
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got := p.Samples.Node.Len(); got != len(ids) {
				t.Fatalf("%s: %d samples, want %d", tt.name, got, len(ids))
			}
			for i, id := range ids {
				if got := p.Nodes[p.Samples.Node.At(i)].InputID; got != id {
					t.Errorf("%s (read ahead from %d): sample %d is node %d, id %d; want id %d", tt.name, ahead, i, p.Samples.Node.At(i), got, id)
				}
			}
			if p.Samples.Node.Narrow() != tt.narrow {
				t.Errorf("%s (read ahead from %d): narrow %v, want %v", tt.name, ahead, p.Samples.Node.Narrow(), tt.narrow)
			}
		}
	}
}

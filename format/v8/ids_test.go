package v8

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// treeDoc writes a .cpuprofile of n nodes, node i's parent a random node
// before it, node i's id ids(i), and a sample at each node.
func treeDoc(r *rand.Rand, n int, ids func(int) int64) []byte {
	kids := make([][]int, n)
	for i := 1; i < n; i++ {
		q := r.IntN(i)
		kids[q] = append(kids[q], i)
	}
	var b strings.Builder
	writeNodeTable(&b, kids, ids, 50)
	b.WriteString(`],"startTime":0,"endTime":1000000,"samples":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", ids(i))
	}
	b.WriteString(`],"timeDeltas":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("100")
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestIDsInOrder reads node tables whose ids are numbered in order (as V8
// numbers them) and others: what they read to, profile or error, must not
// depend on indexIDs' shortcut for ids in order, read in order or in two
// halves; and the shortcut must be taken exactly where the ids are in
// order.
func TestIDsInOrder(t *testing.T) {
	defer func(n, m int, on bool) { splitNodesBytes, parallelTailBytes, orderedIDs = n, m, on }(splitNodesBytes, parallelTailBytes, orderedIDs)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 3000
	type idCase struct {
		name    string
		ids     func(int) int64
		inOrder bool
		err     string
	}
	cases := []idCase{
		{"from 1", func(i int) int64 { return int64(i + 1) }, true, ""},
		{"from 0", func(i int) int64 { return int64(i) }, true, ""},
		{"from −7", func(i int) int64 { return int64(i - 7) }, true, ""},
		{"wrapping", func(i int) int64 { return int64(uint64(1<<63-5) + uint64(i)) }, true, ""},
		{"gap in the second half", func(i int) int64 { return int64(i + 1 + i/(n*2/3)) }, false, ""},
		{"gap at the middle", func(i int) int64 { return int64(i + 1 + i/(n/2)) }, false, ""},
		{"reversed", func(i int) int64 { return int64(n - i) }, false, ""},
		{"sparse", func(i int) int64 { return int64(i)*1000 + 1 }, false, ""},
		{"last repeated", func(i int) int64 { return int64(min(i+1, n-1)) }, false, "duplicate node id"},
		{"first repeated at the middle", func(i int) int64 {
			if i == n/2 {
				return 1
			}
			return int64(i + 1)
		}, false, "duplicate node id"},
	}
	// Ids of six digits, so that the table's bytes, and the node where it
	// is split in two halves, do not move with a gap: each half is in
	// order, but the second does not follow the first.
	seed := r.Uint64()
	probe := treeDoc(rand.New(rand.NewPCG(seed, 0)), n, func(i int) int64 { return int64(100000 + i) })
	start := int64(len(`{"nodes":[`))
	at := nodeBoundary(probe, start+(int64(len(probe))-start)/2)
	split := strings.Count(string(probe[:at]), `{"id":`)
	if split <= 1 || split >= n-1 {
		t.Fatalf("split at node %d of %d", split, n)
	}
	cases = append(cases, idCase{"gap at the split", func(i int) int64 { return int64(100000 + i + 500*(i/split)) }, false, ""})
	for k, c := range cases {
		data := treeDoc(r, n, c.ids)
		if k == len(cases)-1 {
			data = treeDoc(rand.New(rand.NewPCG(seed, 0)), n, c.ids)
			if len(data) != len(probe) {
				t.Fatalf("the gap moved the table's bytes")
			}
		}
		for _, halves := range []bool{false, true} {
			parallelTailBytes, splitNodesBytes = 1<<62, 1<<62
			if halves {
				splitNodesBytes = 0
			}
			orderedIDs = false
			want, werr := ParseBytes(data, Limits{})
			orderedIDs = true
			before := idsByOrder.Load()
			got, gerr := ParseBytes(data, Limits{})
			used := idsByOrder.Load() > before
			name := fmt.Sprintf("%s, halves %v", c.name, halves)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Errorf("%s: error %v with the shortcut, %v without", name, gerr, werr)
				continue
			}
			if c.err != "" && (gerr == nil || !strings.Contains(gerr.Error(), c.err)) {
				t.Errorf("%s: error %v, want %q", name, gerr, c.err)
			}
			if c.err == "" && gerr != nil {
				t.Errorf("%s: %v", name, gerr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the profile differs with the shortcut", name)
			}
			if used != c.inOrder {
				t.Errorf("%s: shortcut taken %v, want %v", name, used, c.inOrder)
			}
		}
	}
}

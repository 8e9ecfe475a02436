package v8

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestMapSamples16 reads random profiles of fewer than 65,536 nodes with
// and without mapSamples16: ids not numbered from 1, unreachable nodes and
// their samples (dropped, the times after them moved), unknown ids (an
// error), samples out of time order. The profiles, or the errors, must be
// the same.
func TestMapSamples16(t *testing.T) {
	defer func(on bool, c int) { mapSamples16On, concurrentMapSamples = on, c }(mapSamples16On, concurrentMapSamples)
	r := rand.New(rand.NewPCG(7, 8))
	mapped := 0
	for round := range 400 {
		nn := 1 + r.IntN(40)
		base := r.IntN(3) * (1 + r.IntN(60000)) // ids from 1, or from up to 60 000
		var b strings.Builder
		orphans := r.IntN(3)
		writeTreeNodes(&b, nn, orphans, base, 7)
		ns := r.IntN(200)
		var samples, deltas []string
		for range ns {
			id := base + 1 + r.IntN(nn+orphans)
			if r.IntN(300) == 0 {
				id = base + nn + orphans + 1 + r.IntN(5) // unknown
			}
			samples = append(samples, fmt.Sprint(id))
			d := 100 + r.IntN(50)
			if r.IntN(30) == 0 {
				d = -r.IntN(300)
			}
			deltas = append(deltas, fmt.Sprint(d))
		}
		fmt.Fprintf(&b, `],"startTime":1000,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}`, 1000+200*ns, strings.Join(samples, ","), strings.Join(deltas, ","))
		doc := []byte(b.String())
		mapSamples16On = false
		want, werr := ParseBytes(doc, Limits{})
		mapSamples16On = true
		// On this core after the times, and on another beside them.
		for _, concurrent := range []int{1 << 30, 1} {
			concurrentMapSamples = concurrent
			got, gerr := ParseBytes(doc, Limits{})
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("round %d (concurrent from %d): error %v with mapSamples16, %v without\n%s", round, concurrent, gerr, werr, doc)
			}
			if werr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d (concurrent from %d): the profiles differ\n%s", round, concurrent, doc)
			}
		}
		if werr == nil {
			mapped++
		}
	}
	if mapped < 200 {
		t.Errorf("only %d of 400 profiles read without error", mapped)
	}
}

// writeTreeNodes writes `{"nodes":[` and nn nodes of a binary tree (node
// k's parent is (k−1)/2), then orphans nodes that are nobody's children,
// their ids from base+1, their functions f0 to f(funcs−1) in turn.
func writeTreeNodes(b *strings.Builder, nn, orphans, base, funcs int) {
	kids := make([][]int, nn+orphans)
	for k := 1; k < nn; k++ {
		kids[(k-1)/2] = append(kids[(k-1)/2], k)
	}
	writeNodeTable(b, kids, func(i int) int64 { return int64(base + i + 1) }, funcs)
}

// writeNodeTable writes `{"nodes":[` and a node for each of kids (node i's
// children are kids[i]), node i's id id(i) and its function f(i mod funcs).
func writeNodeTable(b *strings.Builder, kids [][]int, id func(int) int64, funcs int) {
	b.WriteString(`{"nodes":[`)
	for i := range kids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `{"id":%d,"callFrame":{"functionName":"f%d","scriptId":"1","url":"a.js","lineNumber":%d,"columnNumber":0}`, id(i), i%funcs, i)
		if len(kids[i]) > 0 {
			b.WriteString(`,"children":[`)
			for j, k := range kids[i] {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(b, "%d", id(k))
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
}

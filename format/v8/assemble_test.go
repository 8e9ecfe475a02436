package v8_test

import (
	"slices"
	"testing"

	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// TestAssemblerLines appends chunks with and without per-sample lines and
// columns, some cut short, and requires both columns as long as the
// samples, with zeros where a chunk gave none: before the first chunk with
// lines, for a chunk without, and past the end of a short one.
func TestAssemblerLines(t *testing.T) {
	b := profile.NewBuilder("chrome-trace")
	a := v8.NewAssembler(b)
	nodes := `[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},` +
		`{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}]`
	if err := a.ReadNodes(jsonscan.New([]byte(nodes)), 0, ""); err != nil {
		t.Fatal(err)
	}
	chunk := func(n int, lines, cols []int32) {
		ids, deltas := make([]int64, n), make([]int64, n)
		for i := range ids {
			ids[i], deltas[i] = 2, 1000
		}
		a.AddSamples(ids)
		a.AddTimeDeltas(deltas)
		a.AddLines(lines, cols, n)
	}
	chunk(3, nil, nil)
	if a.HasLines() {
		t.Error("HasLines before any chunk with lines")
	}
	chunk(2, []int32{5, 6}, []int32{7, 8})
	if !a.HasLines() {
		t.Error("no HasLines after a chunk with lines")
	}
	chunk(2, nil, nil)
	chunk(2, []int32{9}, nil)
	if err := a.Append(profile.Thread{Name: "main"}, ""); err != nil {
		t.Fatal(err)
	}
	s := b.P.Samples
	wantLines := []int32{0, 0, 0, 5, 6, 0, 0, 9, 0}
	wantCols := []int32{0, 0, 0, 7, 8, 0, 0, 0, 0}
	if !slices.Equal(s.Line, wantLines) || !slices.Equal(s.Column, wantCols) {
		t.Errorf("lines %v, columns %v; want %v and %v", s.Line, s.Column, wantLines, wantCols)
	}
}

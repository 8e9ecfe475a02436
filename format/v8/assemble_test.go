package v8_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
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
	if a.HasLines() || a.HasColumns() {
		t.Error("HasLines or HasColumns before any chunk with lines")
	}
	chunk(2, []int32{5, 6}, []int32{7, 8})
	if !a.HasLines() || !a.HasColumns() {
		t.Error("no HasLines or HasColumns after a chunk with lines and columns")
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

// TestAssemblerColumns appends threads with lines and no columns (as Chrome
// writes them before 156), with both and with neither, and requires the
// columns only once a thread has them: nil while none has, else zeros for
// the samples of the threads without, before and after.
func TestAssemblerColumns(t *testing.T) {
	nodes := `[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},` +
		`{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}]`
	thread := func(b *profile.Builder, lines, cols []int32) {
		t.Helper()
		a := v8.NewAssembler(b)
		if err := a.ReadNodes(jsonscan.New([]byte(nodes)), 0, ""); err != nil {
			t.Fatal(err)
		}
		n := 2
		a.AddSamples32([]int32{2, 2})
		a.AddTimeDeltas32([]int32{1, 1})
		a.AddLines(lines, cols, n)
		if a.HasColumns() != (cols != nil) {
			t.Errorf("HasColumns %v with columns %v", a.HasColumns(), cols)
		}
		if err := a.Append(profile.Thread{Name: "t"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name                string
		threads             [][2][]int32 // lines, columns
		wantLines, wantCols []int32
	}{
		{"lines only", [][2][]int32{{{3, 4}, nil}}, []int32{3, 4}, nil},
		{"lines only, twice", [][2][]int32{{{3, 4}, nil}, {{5}, nil}}, []int32{3, 4, 5, 0}, nil},
		{"columns after", [][2][]int32{{{3, 4}, nil}, {nil, nil}, {{5, 6}, {7, 8}}}, []int32{3, 4, 0, 0, 5, 6}, []int32{0, 0, 0, 0, 7, 8}},
		{"columns before", [][2][]int32{{{5, 6}, {7, 8}}, {{3, 4}, nil}, {nil, nil}}, []int32{5, 6, 3, 4, 0, 0}, []int32{7, 8, 0, 0, 0, 0}},
		{"columns without lines", [][2][]int32{{nil, {7}}}, []int32{0, 0}, []int32{7, 0}},
		{"neither", [][2][]int32{{nil, nil}}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := profile.NewBuilder("chrome-trace")
			for _, th := range tc.threads {
				thread(b, th[0], th[1])
			}
			s := b.P.Samples
			if !slices.Equal(s.Line, tc.wantLines) || (s.Line == nil) != (tc.wantLines == nil) ||
				!slices.Equal(s.Column, tc.wantCols) || (s.Column == nil) != (tc.wantCols == nil) {
				t.Errorf("lines %v (nil %v), columns %v (nil %v); want %v and %v", s.Line, s.Line == nil, s.Column, s.Column == nil, tc.wantLines, tc.wantCols)
			}
			if err := b.P.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestAssemblerNodesGrowth reads a trace profile's nodes chunk by chunk, as
// a trace gives them (none counted ahead), and bounds what their table
// allocates: grown by a quarter at a time (append's growth of a large
// slice), 20 k nodes of 88 bytes allocated 4.7 times their size (410
// bytes a node); doubled, twice the last capacity, 3.1 times (273 here,
// at most four times where the count is just past a power of two).
func TestAssemblerNodesGrowth(t *testing.T) {
	const chunks, per = 2000, 10
	docs := make([][]byte, chunks)
	for c := range docs {
		var b strings.Builder
		b.WriteByte('[')
		for k := range per {
			id := c*per + k + 1
			if k > 0 {
				b.WriteByte(',')
			}
			if id == 1 {
				b.WriteString(`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}`)
				continue
			}
			fmt.Fprintf(&b, `{"id":%d,"parent":%d,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}`, id, id-1)
		}
		b.WriteByte(']')
		docs[c] = []byte(b.String())
	}
	a := v8.NewAssembler(profile.NewBuilder("chrome-trace"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, d := range docs {
		if err := a.ReadNodes(jsonscan.New(d), 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	perNode := float64(after.TotalAlloc-before.TotalAlloc) / (chunks * per)
	if perNode > 320 {
		t.Errorf("reading %d nodes in %d chunks allocated %.0f bytes a node, want at most 320 (a raw node is 88)", chunks*per, chunks, perNode)
	}
	t.Logf("%.0f bytes a node", perNode)
}

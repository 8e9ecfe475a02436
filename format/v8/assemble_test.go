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

// rootAndF returns an assembler into b that has read a profile's two nodes,
// the root and f (id 2).
func rootAndF(t *testing.T, b *profile.Builder) *v8.Assembler {
	t.Helper()
	a := v8.NewAssembler(b)
	nodes := `[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},` +
		`{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}]`
	if err := a.ReadNodes(jsonscan.New([]byte(nodes)), 0, ""); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAssemblerLines appends chunks with and without per-sample lines and
// columns, some cut short, and requires both columns as long as the
// samples, with zeros where a chunk gave none: before the first chunk with
// lines, for a chunk without, and past the end of a short one.
func TestAssemblerLines(t *testing.T) {
	b := profile.NewBuilder("chrome-trace")
	a := rootAndF(t, b)
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
	thread := func(b *profile.Builder, lines, cols []int32) {
		t.Helper()
		a := rootAndF(t, b)
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

// TestAssemblerColumnsAfterJoin gives a profile's first columns after its
// lines were joined (Truncate joins what it has; so does ReadProfile):
// the columns get zeros for the samples joined before, and the profile is
// appended (lines and columns as long as the samples).
func TestAssemblerColumnsAfterJoin(t *testing.T) {
	b := profile.NewBuilder("chrome-trace")
	a := rootAndF(t, b)
	a.AddSamples16([]uint16{2, 2})
	a.AddTimeDeltas16([]int16{1, 1})
	a.AddLines16([]uint16{3, 4}, nil, 2)
	if dropped := a.Truncate(); dropped != 0 {
		t.Fatalf("Truncate dropped %d", dropped)
	}
	a.AddSamples16([]uint16{2})
	a.AddTimeDeltas16([]int16{1})
	a.AddLines([]int32{5}, []int32{6}, 1)
	if err := a.Append(profile.Thread{Name: "t"}, ""); err != nil {
		t.Fatal(err)
	}
	s := b.P.Samples
	if !slices.Equal(s.Line, []int32{3, 4, 5}) || !slices.Equal(s.Column, []int32{0, 0, 6}) {
		t.Errorf("lines %v, columns %v; want [3 4 5] and [0 0 6]", s.Line, s.Column)
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

// TestAssemblerWidths appends the same samples, time deltas and lines in
// chunks of every width mix the trace reader gives (16, 32 and 64-bit ids;
// 16 and 32-bit µs and 64-bit ns deltas; 16 and 32-bit lines), joined once
// and in two steps (Truncate joins what it has), and requires the profile
// each mix gives to equal the one all-64-bit chunks give.
func TestAssemblerWidths(t *testing.T) {
	nodes := `[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},` +
		`{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}},` +
		`{"id":65536,"parent":1,"callFrame":{"functionName":"g","scriptId":"1","url":"a.js","lineNumber":3,"columnNumber":0}}]`
	ids := []int64{2, 2, 65536, 2, 2, 65536, 2, 2, 2}
	deltas := []int64{5, 1, -2, 40000, 3, 1, 1, 7, 2} // µs: out of order once, one beyond int16
	lines := []int32{1, 70000, 2, 3, 0, 4, 5, 6, 7}
	chunks := [][2]int{{0, 3}, {3, 5}, {5, 9}}
	type mix struct{ id, delta, line int } // widths: 16, 32, 64 (lines 16 or 32)
	appendChunk := func(a *v8.Assembler, lo, hi int, m mix) {
		var id16 []uint16
		var id32 []int32
		for _, v := range ids[lo:hi] {
			id16, id32 = append(id16, uint16(v)), append(id32, int32(v))
		}
		switch m.id {
		case 16:
			a.AddSamples16(id16)
		case 32:
			a.AddSamples32(id32)
		default:
			a.AddSamples(slices.Clone(ids[lo:hi]))
		}
		var d16 []int16
		var d32 []int32
		var ns []int64
		for _, v := range deltas[lo:hi] {
			d16, d32, ns = append(d16, int16(v)), append(d32, int32(v)), append(ns, v*1000)
		}
		switch m.delta {
		case 16:
			a.AddTimeDeltas16(d16)
		case 32:
			a.AddTimeDeltas32(d32)
		default:
			a.AddTimeDeltas(ns)
		}
		var l16 []uint16
		for _, v := range lines[lo:hi] {
			l16 = append(l16, uint16(v))
		}
		if m.line == 16 {
			a.AddLines16(l16, nil, hi-lo)
		} else {
			a.AddLines(slices.Clone(lines[lo:hi]), nil, hi-lo)
		}
	}
	// A chunk's 16-bit forms only where its values fit.
	fits := func(k int, m mix) bool {
		lo, hi := chunks[k][0], chunks[k][1]
		for i := lo; i < hi; i++ {
			if m.id == 16 && ids[i] > 65535 || m.delta == 16 && deltas[i] > 32767 || m.line == 16 && lines[i] > 65535 {
				return false
			}
		}
		return true
	}
	build := func(mixes []mix, split bool) *profile.Profile {
		t.Helper()
		b := profile.NewBuilder("chrome-trace")
		a := v8.NewAssembler(b)
		if err := a.ReadNodes(jsonscan.New([]byte(nodes)), 0, ""); err != nil {
			t.Fatal(err)
		}
		a.SetStart(100)
		for k, c := range chunks {
			appendChunk(a, c[0], c[1], mixes[k])
			if split && k == 0 {
				a.Truncate()
			}
		}
		if err := a.Append(profile.Thread{Name: "t"}, ""); err != nil {
			t.Fatal(err)
		}
		return b.P
	}
	wide := mix{64, 64, 32}
	want := build([]mix{wide, wide, wide}, false)
	if want.Samples.Len() != len(ids) {
		t.Fatalf("%d samples, want %d", want.Samples.Len(), len(ids))
	}
	widths := []mix{}
	for _, id := range []int{16, 32, 64} {
		for _, d := range []int{16, 32, 64} {
			for _, l := range []int{16, 32} {
				widths = append(widths, mix{id, d, l})
			}
		}
	}
	tried := 0
	for _, m0 := range widths {
		for _, m1 := range widths {
			for _, m2 := range []mix{m0, m1, {16, 16, 16}} {
				mixes := []mix{m0, m1, m2}
				if !fits(0, m0) || !fits(1, m1) || !fits(2, m2) {
					continue
				}
				for _, split := range []bool{false, true} {
					tried++
					got := build(mixes, split)
					if got.String() != want.String() {
						t.Fatalf("chunks in %v (joined in two steps %v):\n%s\nwant\n%s", mixes, split, got.String(), want.String())
					}
				}
			}
		}
	}
	if tried < 100 {
		t.Errorf("only %d mixes tried", tried)
	}
}

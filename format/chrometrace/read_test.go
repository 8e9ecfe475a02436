package chrometrace_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

const miniTrace = `[
{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"Main\u003Cthread\u003E"}},
{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":2,"ts":1000,"args":{"data":{"startTime":5}}},
{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":9,"ts":1000,"args":{"data":{"cpuProfile":{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},
 {"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":3,"url":"u.js","lineNumber":4}}],"samples":[2,2]},"timeDeltas":[10,10]}}},
{"name":"RunTask","ph":"B","pid":1,"tid":2,"ts":1005,"cat":"t"},
{"name":"FunctionCall","ph":"X","pid":1,"tid":2,"ts":1006,"dur":30,"cat":"t"},
{"name":"RunTask","ph":"E","pid":1,"tid":2,"ts":1050,"cat":"t"},
{"name":"Other","ph":"X","pid":1,"tid":3,"ts":1006,"dur":3,"cat":"t"}
`

// The reader streams: reading the input one byte at a time must give the
// same profile as reading it whole (every event and escape cut by the end of
// the window), and the partial form without "]" is accepted and reported.
func TestStreamingOneByte(t *testing.T) {
	whole, err := chrometrace.Parse(strings.NewReader(miniTrace), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bytewise, err := chrometrace.Parse(iotest.OneByteReader(strings.NewReader(miniTrace)), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.String() != bytewise.String() {
		t.Errorf("byte-at-a-time read differs:\n%s\nvs\n%s", bytewise, whole)
	}
	th := whole.Threads[0]
	if th.Name != "Main<thread>" || th.PID != 1 || th.TID != 2 || th.ProfileID != "0x1" {
		t.Errorf("thread %+v", th)
	}
	if whole.Diagnostics.Count("unterminated-array") != 1 {
		t.Errorf("diagnostics: %v", whole.Diagnostics)
	}
	// B/E paired into one complete event; the other thread's event dropped
	// with a count.
	if len(whole.Events) != 2 || whole.Str(whole.Events[0].Name) != "RunTask" || whole.Events[0].Dur != 45_000 {
		t.Errorf("events: %s", whole)
	}
	if whole.Diagnostics.Count("events-other-threads") != 1 {
		t.Errorf("diagnostics: %v", whole.Diagnostics)
	}
}

func TestObjectFormAndMetadata(t *testing.T) {
	doc := `{"metadata":{"big":"` + strings.Repeat("x", 1<<20) + `"},"traceEvents":` + strings.TrimSpace(miniTrace) + `]}`
	p, err := chrometrace.Parse(strings.NewReader(doc), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Threads) != 1 || p.Samples.Len() != 2 || p.Diagnostics.Count("unterminated-array") != 0 {
		t.Errorf("%d threads, %d samples, %v", len(p.Threads), p.Samples.Len(), p.Diagnostics)
	}
}

// A trace cut anywhere is salvaged or rejected with a located error; never
// a panic.
func TestTruncatedAnywhere(t *testing.T) {
	var buf bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&buf, 3, 200_000); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for cut := 0; cut < len(data); cut += 997 {
		p, err := chrometrace.Parse(bytes.NewReader(data[:cut]), chrometrace.Options{})
		if err != nil {
			if !strings.Contains(err.Error(), "offset") {
				t.Fatalf("cut at %d: error without an offset: %v", cut, err)
			}
			continue
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if cut > 5000 && p.Diagnostics.Count("truncated-event")+p.Diagnostics.Count("unterminated-array")+p.Diagnostics.Count("truncated-object") == 0 {
			t.Fatalf("cut at %d: salvaged without reporting the cut: %v", cut, p.Diagnostics)
		}
	}
}

func TestNotATrace(t *testing.T) {
	for _, in := range []string{"", "   ", "42", `"x"`, `{"a":1}`} {
		_, err := chrometrace.Parse(strings.NewReader(in), chrometrace.Options{})
		if err == nil {
			t.Errorf("%q: accepted", in)
			continue
		}
		if _, ok := err.(*profile.ParseError); !ok {
			t.Errorf("%q: %T %v, want a *profile.ParseError", in, err, err)
		}
	}
}

// ProfileChunk timeDeltas may be fractional µs (jsprof writes ns that way;
// DevTools adds any number): they are read to the ns, and one beyond any
// clock is an error at its value.
func TestChunkFractionalDeltas(t *testing.T) {
	doc := `[{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":2,"ts":100,"args":{"data":{"startTime":100}}},` +
		`{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":110,"args":{"data":{"cpuProfile":{"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}}],` +
		`"samples":[2,2,2]},"timeDeltas":[1.5,0.001,2]}}}]`
	p, err := chrometrace.Parse(strings.NewReader(doc), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := p.ThreadSamples(0).Time.Wide()
	want := []profile.Time{101_500, 101_501, 103_501}
	if !slices.Equal(got, want) {
		t.Errorf("sample times %v, want %v", got, want)
	}
	bad := strings.Replace(doc, "0.001", "123456789012345678.5", 1)
	if _, err := chrometrace.Parse(strings.NewReader(bad), chrometrace.Options{}); err == nil || !strings.Contains(err.Error(), "[1].args.data.timeDeltas[1]: time 12345678901234") || !strings.HasSuffix(err.Error(), "µs out of range") {
		t.Errorf("a delta of 1.2e17 µs: got error %v", err)
	}
}

// A ProfileChunk's samples and deltas are kept in 32 bits (ids, whole µs)
// while they fit, and the profile's times then stay compact; a chunk whose
// ids or deltas do not fit (an id beyond int32, a fractional µs, before or
// after chunks that fit) widens the joined arrays without changing a value.
func TestChunkArraysMixedWidths(t *testing.T) {
	const big = 5_000_000_000 // beyond int32
	chunk := func(nodes, samples, deltas string) string {
		return `{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":110,"args":{"data":{"cpuProfile":{"nodes":[` +
			nodes + `],"samples":[` + samples + `]},"timeDeltas":[` + deltas + `]}}}`
	}
	nodes := `{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}}`
	bigNode := `{"id":5000000000,"parent":1,"callFrame":{"functionName":"g"}}`
	profileEvent := `{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":2,"ts":100,"args":{"data":{"startTime":100}}}`
	for _, tc := range []struct {
		name    string
		chunks  []string
		times   []profile.Time
		funcs   []string
		compact bool
	}{
		{"narrow", []string{chunk(nodes, "2,2", "1,2"), chunk("", "2", "3")},
			[]profile.Time{101_000, 103_000, 106_000}, []string{"f", "f", "f"}, true},
		{"fraction after", []string{chunk(nodes, "2,2", "1,2"), chunk("", "2", "0.5")},
			[]profile.Time{101_000, 103_000, 103_500}, []string{"f", "f", "f"}, false},
		{"fraction before", []string{chunk(nodes, "2", "0.5"), chunk("", "2,2", "1,2")},
			[]profile.Time{100_500, 101_500, 103_500}, []string{"f", "f", "f"}, false},
		{"big id after", []string{chunk(nodes, "2,2", "1,2"), chunk(bigNode, fmt.Sprint(big, ",2"), "3,4")},
			[]profile.Time{101_000, 103_000, 106_000, 110_000}, []string{"f", "f", "g", "f"}, true},
		{"big id before", []string{chunk(nodes+","+bigNode, fmt.Sprint(big), "1"), chunk("", "2,2", "1,2")},
			[]profile.Time{101_000, 102_000, 104_000}, []string{"g", "f", "f"}, true},
		// A chunk of more samples than deltas: the profile is cut to the
		// shorter of its samples and deltas (v8.Assembler.Truncate).
		{"more samples", []string{chunk(nodes, "2,2,2", "1,2"), chunk("", "2", "4")},
			[]profile.Time{101_000, 103_000, 107_000}, []string{"f", "f", "f"}, true},
		{"more samples, wide", []string{chunk(nodes, "2,2,2", "1,0.5"), chunk("", "2", "4")},
			[]profile.Time{101_000, 101_500, 105_500}, []string{"f", "f", "f"}, false},
		{"more deltas", []string{chunk(nodes, "2", "1,2"), chunk("", "2", "4")},
			[]profile.Time{101_000, 103_000}, []string{"f", "f"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "[" + profileEvent + "," + strings.Join(tc.chunks, ",") + "]"
			p, err := chrometrace.Parse(strings.NewReader(doc), chrometrace.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ss := p.ThreadSamples(0)
			if got := ss.Time.Wide(); !slices.Equal(got, tc.times) {
				t.Errorf("sample times %v, want %v", got, tc.times)
			}
			var funcs []string
			for _, nd := range ss.Node.All() {
				funcs = append(funcs, p.Str(p.NodeFrame(nd).Name))
			}
			if !slices.Equal(funcs, tc.funcs) {
				t.Errorf("sample functions %v, want %v", funcs, tc.funcs)
			}
			if ss.Time.Compact() != tc.compact {
				t.Errorf("times compact %v, want %v", ss.Time.Compact(), tc.compact)
			}
		})
	}
}

// A ProfileChunk's per-sample lines and columns: read as int32, a value
// beyond it clamped; a chunk without them gives zeros, as a short array
// does past its end.
func TestChunkLines(t *testing.T) {
	chunk := func(nodes, samples, deltas, extra string) string {
		return `{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":110,"args":{"data":{"cpuProfile":{"nodes":[` +
			nodes + `],"samples":[` + samples + `]},"timeDeltas":[` + deltas + `]` + extra + `}}}`
	}
	nodes := `{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}}`
	doc := `[{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":2,"ts":100,"args":{"data":{"startTime":100}}},` +
		chunk(nodes, "2", "1", "") + "," +
		chunk("", "2,2,2", "1,1,1", `,"lines":[5,9999999999,-9999999999],"columns":[7,8]`) + "," +
		chunk("", "2", "1", `,"lines":[6],"columns":[9]`) + "]"
	p, err := chrometrace.Parse(strings.NewReader(doc), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ss := p.ThreadSamples(0)
	wantLines := []int32{0, 5, math.MaxInt32, math.MinInt32, 6}
	wantCols := []int32{0, 7, 8, 0, 9}
	if !slices.Equal(ss.Line, wantLines) || !slices.Equal(ss.Column, wantCols) {
		t.Errorf("lines %v, columns %v; want %v and %v", ss.Line, ss.Column, wantLines, wantCols)
	}
}

// TestChunkLinesOnly reads two profiles whose chunks give lines and no
// columns, as Chrome before 156 writes them: the profile keeps the lines of
// both threads and no column (a column of zeros took 4 bytes a sample), and
// the trace written from it has lines and no columns, and reads back the same.
func TestChunkLinesOnly(t *testing.T) {
	prof := func(tid int, lines string) string {
		return `{"name":"Profile","ph":"P","id":"0x` + strconv.Itoa(tid) + `","pid":1,"tid":` + strconv.Itoa(tid) + `,"ts":100,"args":{"data":{"startTime":100}}},` +
			`{"name":"ProfileChunk","ph":"P","id":"0x` + strconv.Itoa(tid) + `","pid":1,"tid":` + strconv.Itoa(tid) + `,"ts":110,"args":{"data":{"cpuProfile":{"nodes":[` +
			`{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}}],"samples":[2,2,2]},"timeDeltas":[1,1,1],"lines":[` + lines + `]}}}`
	}
	doc := "[" + prof(2, "5,6,7") + "," + prof(3, "8,9") + "]"
	p, err := chrometrace.Parse(strings.NewReader(doc), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Threads) != 2 {
		t.Fatalf("%d threads, want 2", len(p.Threads))
	}
	want := []int32{5, 6, 7, 8, 9, 0}
	if !slices.Equal(p.Samples.Line, want) || p.Samples.Column != nil {
		t.Fatalf("lines %v, columns %v; want %v and none", p.Samples.Line, p.Samples.Column, want)
	}
	var buf bytes.Buffer
	if err := chrometrace.Write(&buf, p, chrometrace.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"lines":[`)) || bytes.Contains(buf.Bytes(), []byte(`"columns"`)) {
		t.Errorf("written trace: lines %v, columns %v; want lines only", bytes.Contains(buf.Bytes(), []byte(`"lines":[`)), bytes.Contains(buf.Bytes(), []byte(`"columns"`)))
	}
	back, err := chrometrace.Parse(bytes.NewReader(buf.Bytes()), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Samples.Line, p.Samples.Line) || back.Samples.Column != nil {
		t.Errorf("read back: lines %v, columns %v; want %v and none", back.Samples.Line, back.Samples.Column, p.Samples.Line)
	}
}

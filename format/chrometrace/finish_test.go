package chrometrace

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestFinishBesideSameResult checks that keeping the events beside the
// profiles' appends, and making them in two halves, gives the profile (or
// the error) that keeping them after the appends gives: on the traces of
// testdata, a generated one, its events' args kept, a second profile, and
// a profile that fails to append.
func TestFinishBesideSameResult(t *testing.T) {
	type doc struct {
		name string
		data []byte
		opts Options
	}
	var docs []doc
	if !testing.Short() { // CI's -race run: the generated trace and its variants only
		for name, data := range testdataTraces(t) {
			docs = append(docs, doc{name: name, data: data})
		}
	}
	var gen bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&gen, 5, 300_000); err != nil {
		t.Fatal(err)
	}
	base := gen.Bytes()
	// Its events again as a second renderer's, with a profile of its own.
	body := bytes.TrimSpace(base[bytes.IndexByte(base, '[')+1 : bytes.LastIndexByte(base, ']')])
	other := body
	for _, r := range [][2]string{{`"pid":4242`, `"pid":4343`}, {`"id":"0x1"`, `"id":"0x2"`}, {`"name":"Layout"`, `"name":"Layout2"`}} {
		other = bytes.ReplaceAll(other, []byte(r[0]), []byte(r[1]))
	}
	secondProfile := slices.Concat([]byte(`{"traceEvents":[`), body, []byte(","), other, []byte("]}"))
	hugeDeltas := replaceLast(base, `"timeDeltas":[`, `"timeDeltas":[4000000000000000,4000000000000000,`)
	docs = append(docs,
		doc{name: "generated", data: base},
		doc{name: "generated, args kept", data: base, opts: Options{KeepArgs: true}},
		doc{name: "a second profile", data: secondProfile},
		doc{name: "a profile that fails to append", data: hugeDeltas},
	)
	beside := 0
	for _, d := range docs {
		diff, want, werr := sameBeside(d.data, d.opts)
		if diff != "" {
			t.Errorf("%s: %s", d.name, diff)
		}
		if werr == nil && len(want.Events) > 1 {
			beside++
		}
		switch {
		case d.name == "a second profile" && (werr != nil || len(want.Threads) != 2):
			t.Errorf("%s: %v, want 2 threads", d.name, werr)
		case d.name == "a profile that fails to append" && werr == nil:
			t.Errorf("%s: no error", d.name)
		}
	}
	if beside < 3 {
		t.Errorf("%d inputs with events compared, want the generated ones at least", beside)
	}
}

// sameBeside reads data with the events kept after the profiles' appends
// and with them kept beside, made in halves, however few; it returns what
// differs in the second read, if anything, and the first read's profile and
// error.
func sameBeside(data []byte, opts Options) (diff string, want *profile.Profile, werr error) {
	defer func(b, s int) { besideEvents, splitMakeEvents = b, s }(besideEvents, splitMakeEvents)
	besideEvents, splitMakeEvents = math.MaxInt, math.MaxInt
	want, werr = ParseBytes(data, opts)
	besideEvents, splitMakeEvents = 1, 2
	got, gerr := ParseBytes(data, opts)
	switch {
	case (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error():
		return fmt.Sprintf("error %s beside, %s after", errString(gerr), errString(werr)), want, werr
	case !reflect.DeepEqual(got, want):
		return "the profile with its events kept beside the appends differs", want, werr
	}
	return "", want, werr
}

// BenchmarkFinish times what the reader does once the events array is
// read (finish: the profiles appended, the events kept and sorted) on the
// large DevTools traces of the corpus; the reading itself is not timed.
func BenchmarkFinish(b *testing.B) {
	for _, name := range proftest.LargeTraces {
		b.Run(name, func(b *testing.B) {
			data, err := input.ReadFile(proftest.Corpus(b, "devtools/"+name+".json.gz"), nil, input.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				rd := newReader(Options{})
				rd.buf, rd.end, rd.eof, rd.whole = data, len(data), true, true
				if err := rd.run(); err != nil {
					b.Fatal(err)
				}
				rd.stopSplit()
				b.StartTimer()
				if _, err := rd.finish(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// With KeepArgs, EventArgs holds the args of the kept events, each at its
// event, and is nil when none of them has any: the args of a thread
// without a profile are not kept, whether its events are stored or
// deferred.
func TestKeptEventArgs(t *testing.T) {
	defer func(n int) { deferEventsBytes = n }(deferEventsBytes)
	const profileEvents = `{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":2,"ts":100,"args":{"data":{"startTime":100}}},` +
		`{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":110,"args":{"data":{"cpuProfile":{"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}}],` +
		`"samples":[2,2,2]},"timeDeltas":[1,1,1]}}}`
	for _, c := range []struct {
		name, sampledArgs string
		want              [][]byte // EventArgs
	}{
		{"the sampled thread's events without args", "", nil},
		{"an event of the sampled thread with args", `,"args":{"k":1}`, [][]byte{nil, []byte(`{"k":1}`)}},
	} {
		doc := `[{"name":"A","ph":"X","pid":1,"tid":3,"ts":101,"dur":1,"args":{"other":true}},` +
			`{"name":"B","ph":"X","pid":1,"tid":2,"ts":101,"dur":5},` +
			`{"name":"C","ph":"X","pid":1,"tid":2,"ts":102,"dur":1` + c.sampledArgs + `},` +
			profileEvents + `]`
		for _, deferred := range []bool{false, true} {
			deferEventsBytes = 1 << 62
			if deferred {
				deferEventsBytes = 0 // the events of tid 2 read again, as the Profile comes last
			}
			again := readAgainCount.Load()
			p, err := ParseBytes([]byte(doc), Options{KeepArgs: true})
			if err != nil {
				t.Fatal(err)
			}
			if read := readAgainCount.Load() - again; (read > 0) != deferred {
				t.Fatalf("%s, deferred %v: %d events read again", c.name, deferred, read)
			}
			if len(p.Events) != 2 {
				t.Fatalf("%s, deferred %v: %d events kept, want 2", c.name, deferred, len(p.Events))
			}
			if !reflect.DeepEqual(p.EventArgs, c.want) {
				t.Errorf("%s, deferred %v: EventArgs %q, want %q", c.name, deferred, p.EventArgs, c.want)
			}
		}
	}
}

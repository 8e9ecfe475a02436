package chrometrace

import (
	"bytes"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// sameRead parses data streamed (Parse) and whole with the events array on
// two cores (ParseBytes), with and without the options that keep more,
// and reports how they differ: "" when the profiles (string tables
// included), the threads without a profile and the errors are the same.
func sameRead(data []byte, opts Options) string {
	// With the threads without a profile asked for, and without: a whole
	// input read without them defers the events of threads not yet known
	// to be sampled (readAgain).
	for _, unsampled := range []bool{true, false} {
		read := func(parse func(Options) (*profile.Profile, error)) (*profile.Profile, []EventThread, error) {
			var un []EventThread
			o := opts
			if unsampled {
				o.Unsampled = &un
			}
			p, err := parse(o)
			return p, un, err
		}
		want, wantUn, werr := read(func(o Options) (*profile.Profile, error) { return Parse(bytes.NewReader(data), o) })
		got, gotUn, gerr := read(func(o Options) (*profile.Profile, error) { return ParseBytes(data, o) })
		switch {
		case (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error():
			return fmt.Sprintf("threads without a profile asked for: %v: error %s read in parts, %s streamed", unsampled, errString(gerr), errString(werr))
		case !reflect.DeepEqual(got, want):
			return fmt.Sprintf("threads without a profile asked for: %v: the profile read in parts differs from the one streamed", unsampled)
		case !reflect.DeepEqual(gotUn, wantUn):
			return "the threads without a profile read in parts differ from the ones streamed"
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// testdataTraces yields the name and contents of every trace of this
// package's testdata, in order.
func testdataTraces(t *testing.T) iter.Seq2[string, []byte] {
	root := proftest.RepoRoot()
	paths := proftest.Files(t, ".json", filepath.Join("format", "chrometrace", "testdata"))
	return func(yield func(string, []byte) bool) {
		for _, p := range paths {
			data, err := input.ReadFile(p, nil, input.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if trace, _ := Sniff(data[:min(len(data), 256<<10)]); trace && !yield(strings.TrimPrefix(p, root), data) {
				return
			}
		}
	}
}

// TestSplitEventsSameResult reads every trace of testdata and the corpus, a
// generated one (its events' cat before their name, and the other way)
// and broken variants (a bad event, a trailing comma, a cut, a duplicate
// key or an oversized event late; the boundary's bytes inside a string;
// pretty-printed JSON; members after traceEvents) streamed and on two
// cores, in one pair of parts and in many: the profiles or errors must be
// the same, and most readable inputs must have been read in parts. With
// -short (CI's go test -race) it reads the generated trace and its
// variants only.
func TestSplitEventsSameResult(t *testing.T) {
	defer func(n, m int) { splitEventsBytes, deferEventsBytes = n, m }(splitEventsBytes, deferEventsBytes)
	splitEventsBytes, deferEventsBytes = 0, 0
	type doc struct {
		name  string
		data  []byte
		opts  Options
		whole bool // a variant that must be read in parts
	}
	var docs []doc
	if !testing.Short() { // CI's -race run: the generated trace and its variants only
		for name, data := range testdataTraces(t) {
			docs = append(docs, doc{name: name, data: data})
		}
	}
	var gen bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&gen, 3, 400_000); err != nil {
		t.Fatal(err)
	}
	base := gen.Bytes()
	late := func(old, new string) []byte { // old's last occurrence replaced
		if !bytes.Contains(base, []byte(old)) {
			t.Fatalf("no %q in the generated trace", old)
		}
		return replaceLast(base, old, new)
	}
	end := bytes.LastIndexByte(base, ']')
	// The last chunk made a profile of its own, with names never met
	// before: its pid, id and nodes' strings are interned in the order of
	// an in-order read.
	lastChunk := func() []byte {
		i := bytes.LastIndex(base, []byte(`"cpuProfile":{"nodes":[`))
		lo, hi := bytes.LastIndexByte(base[:i], '\n')+1, i+bytes.IndexByte(base[i:], '\n')
		line := bytes.ReplaceAll(base[lo:hi], []byte(`"functionName":"`), []byte(`"functionName":"late_`))
		line = bytes.Replace(line, []byte(`"id":"0x1","name"`), []byte(`"id":"0x77","name"`), 1)
		line = bytes.Replace(line, []byte(`"pid":4242`), []byte(`"pid":4343`), 1)
		return append(append(append([]byte{}, base[:lo]...), line...), base[hi:]...)
	}
	// The Profile event moved to the end, and the browser thread's B and E
	// events moved onto the profiled thread: its events are deferred until
	// then and read again when the reader finishes (readAgain).
	profileLast := func() []byte {
		i := bytes.Index(base, []byte(`"name":"Profile","ph":"P"`))
		lo, hi := bytes.LastIndexByte(base[:i], '\n')+1, i+bytes.IndexByte(base[i:], '\n')+1
		last := bytes.LastIndex(base[:end], []byte("\n{")) + 1
		out := append(append(append(append([]byte{}, base[:lo]...), base[hi:last]...), base[lo:hi]...), base[last:]...)
		return bytes.ReplaceAll(out, []byte(`"pid":1000,"tid":1001`), []byte(`"pid":4242,"tid":259`))
	}
	docs = append(docs,
		doc{name: "generated", data: base, whole: true},
		doc{name: "profile named last", data: profileLast(), whole: true},
		doc{name: "profile named last, args kept", data: profileLast(), opts: Options{KeepArgs: true}, whole: true},
		doc{name: "generated, args kept", data: base, opts: Options{KeepArgs: true}, whole: true},
		doc{name: "a late chunk of its own", data: lastChunk(), whole: true},
		doc{name: "bad event late", data: late(`"ph":"X"`, `"ph":X`)},
		doc{name: "bad time late", data: late(`"ts":`, `"ts":1e999,"x":`)},
		doc{name: "duplicate name late", data: late(`"name":"`, `"name":"a","name":"`)},
		doc{name: "duplicate cat late", data: late(`"name":"`, `"cat":"late-cat","name":"`)},
		doc{name: "name before cat", data: regexp.MustCompile(`"cat":("[^"]*"),"name":("[^"]*")`).ReplaceAll(base, []byte(`"name":$2,"cat":$1`)), whole: true},
		doc{name: "boundary in a string", data: late(`"name":"`, `"name":"},{\"ph\":\"X\",`), whole: true},
		doc{name: "pretty", data: bytes.ReplaceAll(base, []byte(`},{"`), []byte("},\n  {\"")), whole: true},
		// A profile chunk's args the worker reads ahead: an error in its
		// samples (the main reader reads it again and finds the error),
		// deltas whose sum is out of range (an error located in the
		// chunk's timeDeltas once the profile is built), fractional
		// deltas, an empty node array.
		doc{name: "bad sample late", data: late(`"samples":[`, `"samples":["x",`)},
		doc{name: "huge deltas late", data: late(`"timeDeltas":[`, `"timeDeltas":[4000000000000000,4000000000000000,`)},
		doc{name: "fractional delta late", data: late(`"timeDeltas":[`, `"timeDeltas":[0.5,`), whole: true},
		doc{name: "empty nodes late", data: late(`"cpuProfile":{`, `"cpuProfile":{"nodes":[],`), whole: true},
		doc{name: "trailing comma", data: append(append(append([]byte{}, base[:end]...), ",]"...), base[end+1:]...)},
		doc{name: "unterminated", data: base[:end]},
		doc{name: "cut in an event", data: base[:end-20]},
		doc{name: "members after the events", data: append(append([]byte{}, base[:len(bytes.TrimRight(base, " \n}"))]...), `,"metadata":{"a":[{"x":1},{"y":2}]},"displayTimeUnit":"ms"}`...), whole: true},
		doc{name: "event over the limit", data: late(`"name":"`, `"name":"`+strings.Repeat("x", 5000)), opts: Options{MaxEventBytes: 4096}},
	)
	defer func(n, m int) { pairBytes, segmentBytes, workerTakesLast = n, m, false }(pairBytes, segmentBytes)
	workerTakesLast = true
	againBefore := readAgainCount.Load()
	defer func() {
		if readAgainCount.Load() == againBefore {
			t.Error("no deferred event was read again")
		}
	}()
	// Pairs as read, in segments of 64 KB (a pair of the generated trace
	// is cut in a few), then many pairs of a few segments, and of many.
	for _, sizes := range []struct{ pair, segment int }{{pairBytes, 64 << 10}, {48 << 10, 16 << 10}, {48 << 10, 2 << 10}} {
		pairBytes, segmentBytes = sizes.pair, sizes.segment
		taken, split := splitTaken.Load(), 0
		for _, d := range docs {
			before := splitTaken.Load()
			if diff := sameRead(d.data, d.opts); diff != "" {
				t.Errorf("%+v: %s: %s", sizes, d.name, diff)
			}
			if splitTaken.Load() > before {
				split++
			} else if d.whole {
				t.Errorf("%+v: %s: not read in parts", sizes, d.name)
			}
		}
		taken = splitTaken.Load() - taken
		t.Logf("%+v: %d inputs, %d read in parts, %d segments taken from the worker, %d deferred events read again", sizes, len(docs), split, taken, readAgainCount.Load())
		if !testing.Short() && split < len(docs)*3/4 {
			t.Errorf("%+v: %d inputs read in parts, want most of the %d", sizes, split, len(docs))
		}
	}
}

// FuzzSplitEvents checks that reading the events array in two halves gives
// what streaming it gives, on any input, and that keeping its events beside
// the profiles' appends gives what keeping them after does.
func FuzzSplitEvents(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(proftest.RepoRoot(), "format", "chrometrace", "testdata", "inputs", "*.json"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	var small bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&small, 7, 20_000); err != nil {
		f.Fatal(err)
	}
	f.Add(small.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(n, m, c, k int) {
			splitEventsBytes, pairBytes, segmentBytes, deferEventsBytes, workerTakesLast = n, m, c, k, false
		}(splitEventsBytes, pairBytes, segmentBytes, deferEventsBytes)
		workerTakesLast = true
		splitEventsBytes, pairBytes, segmentBytes, deferEventsBytes = 0, max(64, len(data)/3), max(16, len(data)/10), 0
		fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) { return ParseBytes(data, Options{}) })
		if diff := sameRead(data, Options{}); diff != "" {
			t.Fatal(diff)
		}
		if diff, _, _ := sameBeside(data, Options{}); diff != "" {
			t.Fatal(diff)
		}
	})
}

// TestEventsRead reads a generated trace streamed (Parse) and whole on two
// cores (ParseBytes) with Options.EventsRead set to what the jsprof command
// sets it to (the free heap given back): it is called once, and the
// profile is the one read without it; it is not called when the events
// array is broken.
func TestEventsRead(t *testing.T) {
	defer func(n int) { splitEventsBytes = n }(splitEventsBytes)
	splitEventsBytes = 0
	var gen bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&gen, 2, 100_000); err != nil {
		t.Fatal(err)
	}
	data := gen.Bytes()
	broken := bytes.Replace(data, []byte(`{"`), []byte(`{x"`), 5000)
	want, err := ParseBytes(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	parsers := map[string]func([]byte, Options) (*profile.Profile, error){
		"streamed": func(d []byte, o Options) (*profile.Profile, error) { return Parse(bytes.NewReader(d), o) },
		"whole":    ParseBytes,
	}
	for name, parse := range parsers {
		calls := 0
		opts := Options{EventsRead: func() {
			calls++
			debug.FreeOSMemory()
		}}
		got, err := parse(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Errorf("%s: called %d times", name, calls)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the profile differs with EventsRead set", name)
		}
		calls = 0
		if _, err := parse(broken, opts); err == nil || calls != 0 {
			t.Errorf("%s, broken: error %v, called %d times", name, err, calls)
		}
	}
}

// TestSegEventSize keeps the parsed event that waits between a large
// trace's two readers at 72 bytes: its fields in an order that pads them
// took 80, and those events are most of what reading a trace holds.
func TestSegEventSize(t *testing.T) {
	if n := unsafe.Sizeof(segEvent{}); n != 72 {
		t.Errorf("segEvent is %d bytes, want 72: order its fields widest first", n)
	}
}

// TestGuessesGivenBack: the pages a large trace's segment boundary guesses
// touch go back by stretches of dropGuesses as the guesses are made, not
// once all are: where a guess's fault maps a large folio (a file just
// written), the whole file was otherwise resident before an event was read.
func TestGuessesGivenBack(t *testing.T) {
	defer func(a, b, c int) { splitEventsBytes, segmentBytes, dropGuesses = a, b, c }(splitEventsBytes, segmentBytes, dropGuesses)
	splitEventsBytes, segmentBytes, dropGuesses = 0, 16<<10, 64<<10
	var gen bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&gen, 2, 2<<20); err != nil {
		t.Fatal(err)
	}
	data := gen.Bytes()
	var mu sync.Mutex
	var drops [][2]int64
	drop := func(lo, hi int64) {
		mu.Lock()
		drops = append(drops, [2]int64{lo, hi})
		mu.Unlock()
	}
	want, err := ParseBytes(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseMapped(data, Options{}, nil, drop)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the profile differs read mapped")
	}
	// The guesses' stretches are the first drops, each from where the one
	// before ended, the last to the end of the input.
	chain := 0
	for chain < len(drops) && (chain == 0 || drops[chain][0] == drops[chain-1][1]) {
		chain++
	}
	if chain == 0 || drops[chain-1][1] != int64(len(data)) {
		t.Fatalf("the first drops %v do not end at the input's end (%d bytes)", drops[:chain], len(data))
	}
	if want := len(data) / (2 * dropGuesses); chain < want {
		t.Errorf("the guesses' pages went back in %d stretches over %d bytes, want %d or more", chain, len(data), want)
	}
	t.Logf("%d bytes, %d stretches", len(data), chain)
	for _, d := range drops[:chain] {
		if d[1]-d[0] > int64(dropGuesses+2*segmentBytes) {
			t.Errorf("a stretch of %d bytes given back at once, want at most %d", d[1]-d[0], dropGuesses+2*segmentBytes)
		}
	}
}

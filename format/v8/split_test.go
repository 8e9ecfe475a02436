package v8

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestSplitNodesSameResult parses every .cpuprofile of testdata and the
// corpus, generated shapes and broken variants (an error, a heap profile's
// selfSize or a node over the limit in the second half, the boundary's
// bytes inside a function name, pretty-printed JSON, a cut table) with
// the node table read in two halves and in order: the profiles, string
// tables included, or the errors must be the same. go test -race checks
// the goroutines.
func TestSplitNodesSameResult(t *testing.T) {
	defer func(n, m int) { splitNodesBytes, parallelTailBytes = n, m }(splitNodesBytes, parallelTailBytes)
	type doc struct {
		name   string
		data   []byte
		limits Limits
	}
	var docs []doc
	root := proftest.RepoRoot()
	for _, p := range proftest.Files(t, ".cpuprofile") {
		data, err := input.ReadFile(p, nil, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{name: strings.TrimPrefix(p, root), data: data})
	}
	for _, sh := range proftest.Shapes {
		var buf bytes.Buffer
		if err := proftest.WriteShapedCPUProfile(&buf, sh, 0.01, 5); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{name: "shape " + sh.Name, data: buf.Bytes()})
	}
	base := docs[len(docs)-1].data
	late := func(old, new string) []byte { // old's last occurrence replaced
		i := bytes.LastIndex(base, []byte(old))
		if i < 0 {
			t.Fatalf("no %q in the shape", old)
		}
		return append(append(append([]byte{}, base[:i]...), new...), base[i+len(old):]...)
	}
	nodes := bytes.Count(base, []byte(`{"id":`))
	docs = append(docs,
		doc{name: "bad node late", data: late(`"callFrame":{`, `"callFrame":{x`)},
		doc{name: "bad number late", data: late(`"hitCount":`, `"hitCount":-`)},
		doc{name: "selfSize late", data: late(`{"id":`, `{"selfSize":1,"id":`)},
		doc{name: "boundary in a name", data: late(`"functionName":"`, `"functionName":"},{\"id\":7,`)},
		doc{name: "pretty", data: bytes.ReplaceAll(base, []byte(`},{"id":`), []byte("},\n  {\"id\":"))},
		doc{name: "callFrame first", data: bytes.ReplaceAll(base, []byte(`{"id":`), []byte(`{"callFrame":{},"id":`))},
		doc{name: "positionTicks twice late", data: late(`{"id":`, `{"positionTicks":[{"line":1,"ticks":1}],"positionTicks":[{"line":2,"ticks":5},{"line":3,"ticks":1}],"id":`)},
		doc{name: "boundary in positionTicks", data: late(`{"id":`, `{"positionTicks":[{"line":1,"ticks":1},{"line":2,"ticks":1}],"id":`)},
		doc{name: "cut in the table", data: late(`},{"id":`, `},{"id`)},
		doc{name: "over the limit", data: base, limits: Limits{MaxNodes: nodes - 1}},
		doc{name: "at the limit", data: base, limits: Limits{MaxNodes: nodes}},
	)
	// The tables sized by counting every '{', then by estimates from
	// stretches of 64 bytes: far off either way, so that halves outgrow
	// their share of the tables or leave some of it.
	// The first half's frames found while the second is read (as
	// timing allows), then all of them before it is taken.
	defer func(n int64) { sampleBraces, framesAheadAll = n, false }(sampleBraces)
	for k, sample := range []int64{sampleBraces, 64, sampleBraces, 64} {
		sampleBraces, framesAheadAll = sample, k >= 2
		run := fmt.Sprintf("brace samples of %d, frames found ahead %v", sample, framesAheadAll)
		taken := splitTaken.Load()
		splitDocs := 0
		for _, d := range docs {
			parallelTailBytes = 0
			splitNodesBytes = 1 << 62
			want, werr := ParseBytes(d.data, d.limits)
			splitNodesBytes = 0
			got, gerr := ParseBytes(d.data, d.limits)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Errorf("%s, %s: error %v read in halves, %v in order", d.name, run, gerr, werr)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s: the profile read in halves differs from the one read in order", d.name, run)
			}
			if werr == nil && nodeBoundary(d.data, 0) >= 0 {
				splitDocs++
			}
		}
		taken = splitTaken.Load() - taken
		t.Logf("%s: %d inputs, %d readable with a boundary; %d read in halves", run, len(docs), splitDocs, taken)
		if taken < int64(splitDocs)*3/4 {
			t.Errorf("%s: %d inputs read in halves, want most of the %d with a boundary", run, taken, splitDocs)
		}
	}
}

// FuzzSplitNodes checks that reading the node table in two halves gives
// what reading it in order gives, on any input (an odd-length one with its
// samples and timeDeltas read ahead as well, left to an idle core).
func FuzzSplitNodes(f *testing.F) {
	addSmallProfiles(f)
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"f"}}],"samples":[2],"timeDeltas":[1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(n, m int, k int64) {
			splitNodesBytes, parallelTailBytes, sampleBraces, framesAheadAll = n, m, k, false
		}(splitNodesBytes, parallelTailBytes, sampleBraces)
		splitNodesBytes, parallelTailBytes, sampleBraces = 1<<62, 1<<62, int64(1+len(data)%64) // tables sized by estimates as often as not
		framesAheadAll = len(data)%3 == 0
		want, werr := ParseBytes(data, Limits{})
		splitNodesBytes = 0
		if len(data)%2 == 1 {
			parallelTailBytes = 0 // the arrays read ahead too, left to an idle core (tailArrays.later)
		}
		got, gerr := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) { return ParseBytes(data, Limits{}) })
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("error %v read in halves, %v in order", gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatal("the profile read in halves differs from the one read in order")
		}
	})
}

// countTable counts two '{' a node (itself and its call frame) whatever
// its positionTicks, so that a table with ticks is not overestimated, and
// the entries, to size their table.
func TestCountTable(t *testing.T) {
	node := `{"id":%d,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":3%s},`
	for _, c := range []struct {
		ticks           string
		want, wantTicks int
	}{
		{``, 2, 0},
		{`,"positionTicks":[]`, 2, 0},
		{`,"positionTicks":[{"line":2,"ticks":3}]`, 2, 1},
		{`,"positionTicks":[{"line":2,"ticks":3},{"line":4,"ticks":1},{"line":9,"ticks":7}]`, 2, 3},
	} {
		var b strings.Builder
		for i := range 10 {
			fmt.Fprintf(&b, node, i+1, c.ticks)
		}
		got := countTable([]byte(b.String()))
		if got.braces != 10*c.want {
			t.Errorf("ticks %q: %d braces of nodes in 10 nodes, want %d", c.ticks, got.braces, 10*c.want)
		}
		if got.ticks != 10*c.wantTicks {
			t.Errorf("ticks %q: %d entries in 10 nodes, want %d", c.ticks, got.ticks, 10*c.wantTicks)
		}
	}
}

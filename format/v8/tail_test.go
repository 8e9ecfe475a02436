package v8

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestTailArraysSameResult parses every .cpuprofile of testdata and the
// corpus, generated shapes, and broken variants (a bad number in each
// array, a missing bracket, the arrays first, other members last) with the
// arrays read ahead in parallel and in order: the profiles, or the errors,
// must be the same, and the same again with the node table read in two
// halves beside the arrays' goroutines; there, the arrays are left to
// whichever core is idle first (tailArrays.later), and some must be read
// so. go test -race checks the goroutines.
func TestTailArraysSameResult(t *testing.T) {
	defer func(n, m int) { parallelTailBytes, splitNodesBytes = n, m }(parallelTailBytes, splitNodesBytes)
	defaultSplitNodes := splitNodesBytes
	taken0 := splitTaken.Load()
	var docs []struct {
		name string
		data []byte
	}
	add := func(name string, data []byte) {
		docs = append(docs, struct {
			name string
			data []byte
		}{name, data})
	}
	root := proftest.RepoRoot()
	for _, p := range proftest.Files(t, ".cpuprofile") {
		data, err := input.ReadFile(p, nil, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		add(strings.TrimPrefix(p, root), data)
	}
	for _, sh := range proftest.Shapes {
		var buf bytes.Buffer
		if err := proftest.WriteShapedCPUProfile(&buf, sh, 0.01, 5); err != nil {
			t.Fatal(err)
		}
		add("shape "+sh.Name, buf.Bytes())
	}
	base := docs[len(docs)-1].data
	add("bad sample", bytes.Replace(base, []byte(`"samples":[`), []byte(`"samples":[x`), 1))
	add("bad delta", bytes.Replace(base, []byte(`"timeDeltas":[`), []byte(`"timeDeltas":[1.5.5,`), 1))
	add("float delta", bytes.Replace(base, []byte(`"timeDeltas":[`), []byte(`"timeDeltas":[1.5,`), 1))
	add("short", base[:len(base)-3])
	add("spaces", bytes.ReplaceAll(base, []byte(`],"`), []byte("] ,\n \"")))
	add("member last", append(bytes.TrimSuffix(base, []byte("}")), []byte(`,"title":"x"}`)...))
	add("escaped key", bytes.Replace(base, []byte(`"timeDeltas"`), []byte(`"time\u0044eltas"`), 1))
	// Ids beyond int32: the samples are read again as int64.
	bigIDs := []byte(`{"nodes":[{"id":5000000000,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},` +
		`{"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1}}],` +
		`"startTime":0,"endTime":100,"samples":[2,5000000000,2],"timeDeltas":[1,2,3]}`)
	if p, err := ParseBytes(bigIDs, Limits{}); err != nil || p.Samples.Len() != 3 || p.Samples.Node.At(1) != 0 || p.Samples.Node.At(0) != 1 {
		t.Errorf("ids beyond int32: %v, %+v", err, p)
	}
	add("big ids", bigIDs)
	compared, ahead := 0, 0
	taken, later := tailTaken.Load(), tailReadLater.Load()
	for _, d := range docs {
		parallelTailBytes = 1 << 62
		want, werr := ParseBytes(d.data, Limits{})
		parallelTailBytes = 0
		got, gerr := ParseBytes(d.data, Limits{})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%s: error %v read ahead, %v in order", d.name, gerr, werr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the profile read ahead differs from the one read in order", d.name)
		}
		// The node table in two halves, beside the arrays read ahead.
		splitNodesBytes = 1
		got, gerr = ParseBytes(d.data, Limits{})
		splitNodesBytes = defaultSplitNodes
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%s: error %v read ahead and in halves, %v in order", d.name, gerr, werr)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the profile read ahead and in halves differs from the one read in order", d.name)
		}
		compared++
		if tail := (&parser{}).readTailArrays(d.data); tail.samples.at >= 0 && tail.deltas.at >= 0 {
			tail.wait()
			ahead++
		}
	}
	taken = tailTaken.Load() - taken
	t.Logf("%d inputs, %d with both arrays found at the end; %d arrays taken read ahead", compared, ahead, taken)
	if taken < int64(ahead) {
		t.Errorf("%d arrays taken read ahead, want at least %d", taken, ahead)
	}
	later = tailReadLater.Load() - later
	t.Logf("%d arrays left to be read later by an idle core or the parser", later)
	if later < int64(ahead) {
		t.Errorf("%d arrays read later, want at least %d (the node table in halves)", later, ahead)
	}
	if halves := splitTaken.Load() - taken0; halves < int64(len(docs)/2) {
		t.Errorf("%d of %d inputs read in two halves", halves, len(docs))
	}
	if ahead < len(docs)/2 {
		t.Errorf("only %d of %d inputs had their arrays found at the end", ahead, len(docs))
	}
}

// TestTailArraysGivenBack reads a samples-heavy profile ahead with a drop
// that records what it is given: the search for each array's '[', back
// from its ']', gives back the stretches it passes over as it goes (from
// the array's end down, every stretch but the '['s), before its reader
// reads them again upward; and the profile is the one read without
// dropping anything.
func TestTailArraysGivenBack(t *testing.T) {
	defer func(n int) { parallelTailBytes = n }(parallelTailBytes)
	parallelTailBytes = 0
	data, want := samplesHeavy(t, 0.5, 3)
	var mu sync.Mutex
	var given [][2]int64 // in the order given
	got, err := ParseMapped(data, Limits{}, nil, func(lo, hi int64) {
		mu.Lock()
		defer mu.Unlock()
		given = append(given, [2]int64{lo, hi})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the profile read with its arrays' stretches given back differs")
	}
	const r = jsonscan.ReleaseEvery
	for _, key := range []string{`"samples":[`, `"timeDeltas":[`} {
		open := int64(bytes.Index(data, []byte(key)) + len(key) - 1)
		end := int64(bytes.IndexByte(data[open:], ']')) + open
		if end-open < 3*r {
			t.Fatalf("%s spans %d bytes, too few stretches to tell", key, end-open)
		}
		// The first stretches given back inside the array: the search's.
		var first [][2]int64
		for _, g := range given {
			if g[0] > open && g[1] <= end {
				first = append(first, g)
			}
		}
		want := [][2]int64{{end &^ (r - 1), end}}
		for lo := end&^(r-1) - r; lo > open; lo -= r {
			want = append(want, [2]int64{lo, lo + r})
		}
		if len(first) > len(want) {
			first = first[:len(want)]
		}
		if !reflect.DeepEqual(first, want) {
			t.Errorf("%s [%d, %d]: first given back %v, want %v", key, open, end, first, want)
		}
	}
}

// TestReleasedBeforeBuild reads a samples-heavy profile mapped, with a
// release that records what it is given: the whole input is given back
// last, before the profile is built (what the readers still held of it
// was at the reading's peak), and each array read ahead is given back
// again once taken, with the stretch before it that the parser read to
// reach it (its member's name, whose page the kernel maps a large folio
// at a time on a file just written); and the profile is the one read
// without releasing anything.
func TestReleasedBeforeBuild(t *testing.T) {
	defer func(n int) { parallelTailBytes = n }(parallelTailBytes)
	parallelTailBytes = 0
	data, want := samplesHeavy(t, 0.2, 5)
	var mu sync.Mutex
	var given [][2]int64 // in the order given
	got, err := ParseMapped(data, Limits{}, func(lo, hi int64) error {
		mu.Lock()
		defer mu.Unlock()
		given = append(given, [2]int64{lo, hi})
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the profile read with its pages given back differs")
	}
	if len(given) == 0 || given[len(given)-1] != [2]int64{0, int64(len(data))} {
		t.Fatalf("given back last %v, want the whole input [0, %d)", given[max(0, len(given)-1):], len(data))
	}
	for _, key := range []string{`"samples":[`, `"timeDeltas":[`} {
		open := int64(bytes.Index(data, []byte(key)) + len(key) - 1)
		end := int64(bytes.IndexByte(data[open:], ']')) + open + 1
		found := false
		for _, g := range given[:len(given)-1] {
			found = found || g[0] <= max(0, open-tailFolio) && g[1] >= end
		}
		if !found {
			t.Errorf("%s [%d, %d): no stretch given back from %d to its end once taken (given %d stretches)", key, open, end, max(0, open-tailFolio), len(given))
		}
	}
}

// samplesHeavy returns the samples-heavy shape at scale, written with
// seed, and its profile read whole.
func samplesHeavy(t *testing.T, scale float64, seed uint64) ([]byte, *profile.Profile) {
	t.Helper()
	var buf bytes.Buffer
	sh, _ := proftest.ShapeByName("samples-heavy")
	if err := proftest.WriteShapedCPUProfile(&buf, sh, scale, seed); err != nil {
		t.Fatal(err)
	}
	want, err := ParseBytes(buf.Bytes(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), want
}

package v8

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// linedDoc returns a random profile of up to most samples for round (its
// deltas' kind).
func linedDoc(r *rand.Rand, round, most int) []byte {
	nn := 2 + r.IntN(30)
	var b strings.Builder
	orphans := r.IntN(2)
	writeTreeNodes(&b, nn, orphans, 0, 5)
	ns := 1 + r.IntN(most)
	interval := []int{50, 100, 1000}[round%3]
	jitter := []int{2, interval / 10, interval / 2}[r.IntN(3)]
	var samples, deltas []string
	for i := range ns {
		samples = append(samples, fmt.Sprint(1+r.IntN(nn+orphans)))
		d := interval + r.IntN(2*jitter+1) - jitter
		switch r.IntN(200) {
		case 0:
			d = -r.IntN(3 * interval)
		case 1:
			d = 40000 + r.IntN(100000) // beyond 2 bytes
		case 2:
			d = 20000 // a pause
		}
		ds := fmt.Sprint(d)
		if round%20 == 7 && i == r.IntN(ns) {
			ds = []string{"1.5", "x", "1e3", `"7"`}[r.IntN(4)]
		}
		deltas = append(deltas, ds)
	}
	start := "1000"
	if round%25 == 3 {
		start = "4.6e15" // beyond range with the deltas added (±maxTime)
	}
	fmt.Fprintf(&b, `],"startTime":%s,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}`, start, 1000+2000*ns, strings.Join(samples, ","), strings.Join(deltas, ","))
	return []byte(b.String())
}

// TestLinedDeltas reads random profiles with their time deltas read into
// the line form (from one delta on) and not at all: fine samplings, coarse
// ones with jitter (which the line form gives up on, read again), deltas
// beyond 2 bytes, samples out of order, unreachable nodes (times moved),
// times beyond range, and a bad element early or late in the array. The
// profiles (their dumps: the times' form differs) or the errors must be
// the same, read in order and read ahead.
func TestLinedDeltas(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	lined, read := 0, 0
	for round := range 300 {
		doc := linedDoc(r, round, 3000)
		for _, p := range sameLined(t, doc) {
			if p.Samples.Time.Lined() {
				lined++
			}
			read++
		}
	}
	if lined < 150 || lined == read {
		t.Errorf("%d of %d profiles read had their times lined: the test should make both", lined, read)
	}
}

// sameLined reads doc with its deltas lined (from one delta on; in order,
// then read ahead) and not, fails t unless the profiles (their dumps: the
// times' form differs) or the errors are the same, and returns the lined
// reads' profiles (none for an error).
func sameLined(t *testing.T, doc []byte) []*profile.Profile {
	t.Helper()
	defer func(n, m int) { lineMinDeltas, parallelTailBytes = n, m }(lineMinDeltas, parallelTailBytes)
	lineMinDeltas, parallelTailBytes = 1<<62, 1<<62
	want, werr := ParseBytes(doc, Limits{})
	var out []*profile.Profile
	for _, ahead := range []int{1 << 62, 0} {
		lineMinDeltas, parallelTailBytes = 1, ahead
		got, gerr := ParseBytes(doc, Limits{})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("read ahead %t: error %v lined, %v not\n%.2000s", ahead == 0, gerr, werr, doc)
		}
		if werr != nil {
			continue
		}
		if got.String() != want.String() {
			t.Fatalf("read ahead %t: the profiles differ\n%.2000s", ahead == 0, doc)
		}
		out = append(out, got)
	}
	return out
}

// TestLinedDeltasShape reads the samples-heavy shape (every 50 µs): its
// times are lined.
func TestLinedDeltasShape(t *testing.T) {
	sh := proftest.Shapes[slices.IndexFunc(proftest.Shapes, func(s proftest.Shape) bool { return s.Name == "samples-heavy" })]
	var buf bytes.Buffer
	if err := proftest.WriteShapedCPUProfile(&buf, sh, 0.05, 1); err != nil {
		t.Fatal(err)
	}
	p, err := ParseBytes(buf.Bytes(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if times := p.Samples.Time; !times.Lined() || times.Len() < lineMinDeltas {
		t.Fatalf("%d times of a 50 µs sampling: lined %t", times.Len(), times.Lined())
	}
}

// FuzzLinedDeltas reads an input with its time deltas read into the line
// form and not: the profiles (their dumps) or the errors must be the same.
func FuzzLinedDeltas(f *testing.F) {
	r := rand.New(rand.NewPCG(13, 14))
	for round := range 12 {
		f.Add(linedDoc(r, round, 200)) // small: the mutations reach more of it
	}
	f.Fuzz(func(t *testing.T, doc []byte) { sameLined(t, doc) })
}

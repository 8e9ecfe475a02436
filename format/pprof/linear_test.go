package pprof_test

import (
	"bytes"
	"strconv"
	"testing"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/format/pprof"
)

// TestParseLinear checks that Parse builds the call trees and the line
// tables with work in proportion to its input, on shapes that made it
// superlinear. The work is
// counted in map lookups (ParseSteps), a count that does not depend on the
// machine; the input, in samples, their locations and the locations'
// lines.
//
//   - One location of K inlined lines, named by N samples: every sample
//     walked all K lines from the root, N×K lookups (K = N = 8,000 read in
//     1.6 s).
//   - A node at L lines followed by M other nodes: the line table's map of
//     (node, line) was cleared at every node, and Go's clear costs as much
//     as the map has grown, as it keeps its slots: L×M (L = M = 400,000
//     read in 2.7 s). Counted as ParseSteps counts a clear (the entries
//     the map had held), L = M = 2,000 made 4,008,000 lookups.
func TestParseLinear(t *testing.T) {
	t.Parallel()
	const n = 2_000
	sampleType := []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
	fn := func(pp *pprofile.Profile, name string) *pprofile.Function {
		f := &pprofile.Function{ID: uint64(len(pp.Function) + 1), Name: name, Filename: "a.js", StartLine: 1}
		pp.Function = append(pp.Function, f)
		return f
	}
	loc := func(pp *pprofile.Profile, lines ...pprofile.Line) *pprofile.Location {
		l := &pprofile.Location{ID: uint64(len(pp.Location) + 1), Line: lines}
		pp.Location = append(pp.Location, l)
		return l
	}
	sample := func(pp *pprofile.Profile, l *pprofile.Location) {
		pp.Sample = append(pp.Sample, &pprofile.Sample{Location: []*pprofile.Location{l}, Value: []int64{1, 1000}})
	}

	inlined := &pprofile.Profile{SampleType: sampleType}
	var lines []pprofile.Line
	for i := range n {
		lines = append(lines, pprofile.Line{Function: fn(inlined, "f"+strconv.Itoa(i)), Line: 2})
	}
	l := loc(inlined, lines...)
	for range n {
		sample(inlined, l)
	}

	manyLines := &pprofile.Profile{SampleType: sampleType}
	a := fn(manyLines, "a")
	for i := range n {
		sample(manyLines, loc(manyLines, pprofile.Line{Function: a, Line: int64(2 + i)}))
	}
	for i := range n {
		sample(manyLines, loc(manyLines, pprofile.Line{Function: fn(manyLines, "g"+strconv.Itoa(i)), Line: 2}))
	}

	for _, tc := range []struct {
		name             string
		pp               *pprofile.Profile
		nodes, lineTicks int
	}{
		{"one location of many inlined lines", inlined, n + 1, 1},
		{"a node at many lines, then many nodes", manyLines, n + 2, 2 * n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.pp.Write(&buf); err != nil {
				t.Fatal(err)
			}
			p, steps, err := pprof.ParseSteps(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Nodes) != tc.nodes || len(p.LineTicks) != tc.lineTicks {
				t.Fatalf("%d nodes and %d line ticks, want %d and %d", len(p.Nodes), len(p.LineTicks), tc.nodes, tc.lineTicks)
			}
			size := len(tc.pp.Sample)
			for _, s := range tc.pp.Sample {
				size += len(s.Location)
			}
			for _, l := range tc.pp.Location {
				size += len(l.Line)
			}
			// Linear: a lookup for each line of a location the first
			// time it is walked, one or two a sample. Superlinear:
			// hundreds an item.
			t.Logf("%d lookups for %d items of input, %.1f an item", steps, size, float64(steps)/float64(size))
			if steps > 2*size {
				t.Errorf("%d map lookups for an input of %d samples, locations and lines: %.0f an item", steps, size, float64(steps)/float64(size))
			}
		})
	}
}

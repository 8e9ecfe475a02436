package pprof_test

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

var update = flag.Bool("update", false, "rewrite golden files and the generated inputs")

func parse(data []byte) (*profile.Profile, error) { return pprof.Parse(bytes.NewReader(data)) }

// generated are the binary inputs of testdata/inputs, built here so that
// they can be read and changed: TestGeneratedInputs writes them (-update) or
// checks that the committed files still hold these profiles.
func generated() map[string]*pprofile.Profile {
	mapping := &pprofile.Mapping{ID: 1, File: "/usr/bin/node", Start: 0x1000, Limit: 0x9000}
	fMain := &pprofile.Function{ID: 1, Name: "main", SystemName: "main", Filename: "file:///app/a.js", StartLine: 1}
	fHot := &pprofile.Function{ID: 2, Name: "hot", Filename: "file:///app/a.js", StartLine: 10}
	fInl := &pprofile.Function{ID: 3, Name: "inlined", Filename: "file:///app/b.js", StartLine: 0}
	fAnon := &pprofile.Function{ID: 4, Name: "(anonymous)", Filename: "file:///app/a.js", StartLine: 30}
	fSys := &pprofile.Function{ID: 5, SystemName: "v8::internal::Invoke"}
	fGC := &pprofile.Function{ID: 6, Name: "(garbage collector)"}
	fProg := &pprofile.Function{ID: 7, Name: "(program)"}
	lMain := &pprofile.Location{ID: 1, Line: []pprofile.Line{{Function: fMain, Line: 3, Column: 5}}}
	lHot := &pprofile.Location{ID: 2, Line: []pprofile.Line{{Function: fInl, Line: 7, Column: 2}, {Function: fHot, Line: 10, Column: 1}}}
	lAnon := &pprofile.Location{ID: 3, Line: []pprofile.Line{{Function: fAnon, Line: 31}}}
	lAddr := &pprofile.Location{ID: 4, Mapping: mapping, Address: 0x1234}
	lSys := &pprofile.Location{ID: 5, Line: []pprofile.Line{{Function: fSys}}}
	lGC := &pprofile.Location{ID: 6, Line: []pprofile.Line{{Function: fGC}}}
	lProg := &pprofile.Location{ID: 7, Line: []pprofile.Line{{Function: fProg}}}
	stack := func(l ...*pprofile.Location) []*pprofile.Location { return l } // leaf first
	threads := func(name string, pid, tid int64) (map[string][]string, map[string][]int64) {
		return map[string][]string{"thread": {name}}, map[string][]int64{"pid": {pid}, "tid": {tid}}
	}
	mainL, mainN := threads("main", 7, 1)
	workL, workN := threads("worker", 7, 9)
	return map[string]*pprofile.Profile{
		// cpu/nanoseconds is the default type; two threads by labels;
		// inlined lines, columns, an address, a system name,
		// "(anonymous)", a root GC sample, a negative value.
		"threads": {
			SampleType:        []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			DefaultSampleType: "cpu",
			TimeNanos:         1_700_000_000_000_000_000,
			Mapping:           []*pprofile.Mapping{mapping},
			Function:          []*pprofile.Function{fMain, fHot, fInl, fAnon, fSys, fGC, fProg},
			Location:          []*pprofile.Location{lMain, lHot, lAnon, lAddr, lSys, lGC, lProg},
			Sample: []*pprofile.Sample{
				{Location: stack(lHot, lMain), Value: []int64{2, 2000}, Label: mainL, NumLabel: mainN},
				{Location: stack(lAddr, lSys, lMain), Value: []int64{1, 1000}, Label: mainL, NumLabel: mainN},
				{Location: stack(lGC), Value: []int64{1, 500}, Label: mainL, NumLabel: mainN},
				{Location: stack(lAnon, lMain), Value: []int64{1, 700}, Label: workL, NumLabel: workN},
				{Location: stack(lHot, lMain), Value: []int64{1, 300}, Label: mainL, NumLabel: mainN},
				{Location: stack(lProg), Value: []int64{1, -5}, Label: workL, NumLabel: workN},
			},
		},
		// Counts only: each sample lasts count × period (1 ms).
		"counts": {
			SampleType: []*pprofile.ValueType{{Type: "samples", Unit: "count"}},
			PeriodType: &pprofile.ValueType{Type: "cpu", Unit: "milliseconds"},
			Period:     1,
			Function:   []*pprofile.Function{fMain, fHot, fInl},
			Location:   []*pprofile.Location{lMain, lHot},
			Sample: []*pprofile.Sample{
				{Location: stack(lMain), Value: []int64{3}},
				{Location: stack(lHot, lMain), Value: []int64{2}},
			},
		},
		// No default time type and no cpu: wall, in seconds, after a type
		// that is not a time.
		"wall-seconds": {
			SampleType:        []*pprofile.ValueType{{Type: "alloc_space", Unit: "bytes"}, {Type: "wall", Unit: "seconds"}},
			DefaultSampleType: "alloc_space",
			Function:          []*pprofile.Function{fMain},
			Location:          []*pprofile.Location{lMain},
			Sample:            []*pprofile.Sample{{Location: stack(lMain), Value: []int64{4096, 2}}},
		},
		// A Go profile: functions without start_line. main.main is one
		// frame (pprof shows one function), whatever line its samples and
		// calls are at; the leaf lines go to the line table.
		"go-no-start-line": goNoStartLine(),
		// No samples: one thread with its root.
		"no-samples": {
			SampleType: []*pprofile.ValueType{{Type: "cpu", Unit: "microseconds"}},
			TimeNanos:  5000,
		},
	}
}

// goNoStartLine is a Go CPU profile whose functions have no start line, as
// runtime/pprof writes them: main.main at four lines (two calling
// main.work from different lines, two leaves).
func goNoStartLine() *pprofile.Profile {
	fMain := &pprofile.Function{ID: 1, Name: "main.main", SystemName: "main.main", Filename: "/src/app/main.go"}
	fWork := &pprofile.Function{ID: 2, Name: "main.work", SystemName: "main.work", Filename: "/src/app/main.go"}
	loc := func(id uint64, fn *pprofile.Function, line int64) *pprofile.Location {
		return &pprofile.Location{ID: id, Address: 0x1000 + id, Line: []pprofile.Line{{Function: fn, Line: line}}}
	}
	m26, m27, m25, m30 := loc(1, fMain, 26), loc(2, fMain, 27), loc(3, fMain, 25), loc(4, fMain, 30)
	w40 := loc(5, fWork, 40)
	return &pprofile.Profile{
		SampleType:        []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DefaultSampleType: "cpu",
		PeriodType:        &pprofile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            10_000_000,
		Function:          []*pprofile.Function{fMain, fWork},
		Location:          []*pprofile.Location{m26, m27, m25, m30, w40},
		Sample: []*pprofile.Sample{
			{Location: []*pprofile.Location{w40, m26}, Value: []int64{58, 580_000_000}},
			{Location: []*pprofile.Location{w40, m27}, Value: []int64{26, 260_000_000}},
			{Location: []*pprofile.Location{m25}, Value: []int64{27, 270_000_000}},
			{Location: []*pprofile.Location{m30}, Value: []int64{25, 250_000_000}},
		},
	}
}

// TestGeneratedInputs writes the generated inputs with -update; otherwise
// it checks that each committed file reads as the profile built here does.
func TestGeneratedInputs(t *testing.T) {
	for name, pp := range generated() {
		var buf bytes.Buffer
		if err := pp.Write(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join("testdata", "inputs", name+".pb.gz")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		want, err := parse(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := parse(committed)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got.String() != want.String() {
			t.Errorf("%s does not hold the generated profile (go test -update rewrites it):\n%s",
				path, proftest.Diff("generated", path, []byte(want.String()), []byte(got.String())))
		}
	}
}

// TestGolden compares the profile read from each testdata/inputs file with
// its dump in testdata/golden (go test -update rewrites them, after
// TestGeneratedInputs has rewritten the inputs).
func TestGolden(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", parse)
}

// format.Parse falls back on pprof for binary inputs (and the legacy text
// forms) and reads them the same way.
func TestGoldenDetected(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", func(data []byte) (*profile.Profile, error) {
		return format.Parse(data, format.Options{})
	})
}

// TestErrorCases checks the error of each bad text input in testdata/errors
// and of the binary ones built here. pprof is not JSON: errors have no
// offset or path, except the sample they concern.
func TestErrorCases(t *testing.T) {
	proftest.ErrorCases(t, "testdata/errors", parse, proftest.ErrorOptions{})
}

func TestErrorCasesBinary(t *testing.T) {
	fn := &pprofile.Function{ID: 1, Name: "f", Filename: "f.js"}
	loc := &pprofile.Location{ID: 1, Line: []pprofile.Line{{Function: fn, Line: 1}}}
	one := func(types []*pprofile.ValueType, values ...[]int64) *pprofile.Profile {
		pp := &pprofile.Profile{SampleType: types, Function: []*pprofile.Function{fn}, Location: []*pprofile.Location{loc}}
		for _, v := range values {
			pp.Sample = append(pp.Sample, &pprofile.Sample{Location: []*pprofile.Location{loc}, Value: v})
		}
		return pp
	}
	seconds := []*pprofile.ValueType{{Type: "cpu", Unit: "seconds"}}
	nanos := []*pprofile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}
	encode := func(pp *pprofile.Profile) []byte {
		var buf bytes.Buffer
		if err := pp.Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	counts := one([]*pprofile.ValueType{{Type: "samples", Unit: "count"}}, []int64{1})
	counts.PeriodType, counts.Period = &pprofile.ValueType{Type: "cpu", Unit: "seconds"}, math.MaxInt64/1000
	late := one(nanos, []int64{10})
	late.TimeNanos = math.MaxInt64 - 5
	valid := encode(one(nanos, []int64{10}))
	cases := []proftest.ErrorCase{
		{Name: "bytes-only", Comment: "A heap profile: no sample type measures time.",
			Input: encode(one([]*pprofile.ValueType{{Type: "alloc_space", Unit: "bytes"}, {Type: "alloc_objects", Unit: "count"}}, []int64{1, 2})),
			Error: `not a CPU profile: no CPU or time sample type \(have alloc_space/bytes, alloc_objects/count; a heap or allocation profile\?\); want a unit of nanoseconds, microseconds, milliseconds or seconds, or counts with a time period`},
		{Name: "value-overflow", Comment: "A value in seconds beyond int64 nanoseconds.",
			Input: encode(one(seconds, []int64{1}, []int64{10_000_000_000})),
			Error: `sample\[1\]: value 10000000000 overflows int64 nanoseconds`},
		{Name: "period-overflow", Comment: "A count period beyond int64 nanoseconds.",
			Input: encode(counts), Error: `period 9223372036854775 seconds overflows int64 nanoseconds`},
		{Name: "times-overflow", Comment: "Samples laid end to end from TimeNanos beyond int64.",
			Input: encode(late), Error: `thread "": sample times overflow int64 nanoseconds`},
		{Name: "truncated-gzip", Comment: "A gzipped profile cut short.",
			Input: valid[:len(valid)/2], Error: `decompressing profile: unexpected EOF`},
		{Name: "negative-values", Comment: "Negative values count as 0 and are reported.",
			Input:       encode(one(nanos, []int64{-3}, []int64{4}, []int64{-1})),
			Diagnostics: `synthetic-times ×3: .*\nnegative-value ×2: 2 samples had a negative time value, counted as 0`},
	}
	proftest.RunErrorCases(t, cases, parse, proftest.ErrorOptions{})
}

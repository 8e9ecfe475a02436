package speedscope_test

import (
	"bytes"
	"flag"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// fuzzSeedMax bounds the size of the seeds under -fuzz (the fuzzer
// minimizes every new input, which takes long on large ones).
const fuzzSeedMax = 64 << 10

// FuzzParse checks that the reader never panics or hangs, that its errors
// locate the problem (checkParseError), that what it accepts passes
// Validate, and that Write accepts it and writes a file that reads back.
//
// Seeds: the inputs of TestParse and TestParseErrors, and the Node fixtures
// written in both profile types.
func FuzzParse(f *testing.F) {
	setMinimizeTime(5 * time.Second)
	for _, tc := range parseCases {
		f.Add([]byte(tc.input))
	}
	for _, tc := range errorCases {
		f.Add([]byte(tc.input))
	}
	paths, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds in ../../testdata/node: %v", err)
	}
	for _, path := range paths {
		p, err := format.ReadFile(path, nil, format.Options{})
		if err != nil {
			f.Fatal(err)
		}
		s := session.New(path, p, session.Options{})
		for _, write := range []writer{speedscope.WriteSampled, speedscope.WriteEvented} {
			var buf bytes.Buffer
			if err := write(&buf, s.Profile, threadStacks(f, s, view.Options{}), speedscope.Options{}); err != nil {
				f.Fatal(err)
			}
			if buf.Len() <= fuzzSeedMax || !fuzzing() {
				f.Add(buf.Bytes())
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		p, err := fuzzcheck.Parse(t, data, speedscope.ParseBytes)
		if !bytes.Equal(data, orig) {
			t.Fatal("ParseBytes modified its input")
		}
		if err != nil {
			checkParseError(t, data, err)
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted a profile that fails Validate: %v", err)
		}
		if stackFrames(p) > maxStackFrames {
			return // the round trip would take seconds (see maxStackFrames)
		}
		s := session.New("fuzz", p, session.Options{})
		stacks := threadStacks(t, s, view.Options{})
		var buf bytes.Buffer
		if err := speedscope.Write(&buf, s.Profile, stacks, speedscope.Options{}); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if _, err := speedscope.ParseBytes(buf.Bytes()); err != nil {
			t.Fatalf("reading back what Write wrote: %v\n%.1000s", err, buf.Bytes())
		}
		if err := speedscope.WriteEvented(io.Discard, s.Profile, stacks, speedscope.Options{}); err != nil {
			t.Fatalf("WriteEvented: %v", err)
		}
	})
}

// maxStackFrames bounds the frames of all samples' stacks (stackFrames) of
// the profiles whose write and read back FuzzParse checks. The stacks, and
// Write's sampled form, are quadratic in the input for an evented profile
// that opens frames at increasing times and leaves them open: 500 KB of
// such events made the round trip take 13 s, past the fuzz worker's limit
// of 10 s per input. 1<<21 frames take about 0.2 s.
const maxStackFrames = 1 << 21

// stackFrames returns the number of frames of all samples' stacks, the
// roots left out.
func stackFrames(p *profile.Profile) int64 {
	depth := make([]int64, len(p.Nodes))
	for i, n := range p.Nodes {
		if n.Parent != profile.NoNode {
			depth[i] = depth[n.Parent] + 1
		}
	}
	var total int64
	for _, n := range p.Samples.Node.All() {
		total += depth[n]
	}
	return total
}

// fuzzing reports whether the test binary runs with -test.fuzz.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// setMinimizeTime sets -fuzzminimizetime to d under -fuzz unless it was
// given: the default minute per new input would eat a short fuzz run.
func setMinimizeTime(d time.Duration) {
	if !fuzzing() {
		return
	}
	given := false
	flag.Visit(func(fl *flag.Flag) { given = given || fl.Name == "test.fuzzminimizetime" })
	if !given {
		flag.Set("test.fuzzminimizetime", d.String())
	}
}

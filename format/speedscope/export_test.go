package speedscope

import (
	"bufio"
	"io"
	"math"

	"github.com/jsprof/jsprof/profile"
)

// WriteSampled and WriteEvented are Write with the profile type forced, for
// the external tests.
func WriteSampled(w io.Writer, p *profile.Profile, stacks []profile.ThreadStacks, opts Options) error {
	return write(w, p, stacks, opts, formSampled)
}

func WriteEvented(w io.Writer, p *profile.Profile, stacks []profile.ThreadStacks, opts Options) error {
	return write(w, p, stacks, opts, formEvented)
}

// Digits exports digits.
var Digits = digits

// ScaleDecimal exports scaleDecimal.
var ScaleDecimal = scaleDecimal

// SetTextBudget sets the bytes of stack texts the sampled form keeps, and
// returns a function that restores it.
func SetTextBudget(n int) (restore func()) {
	old := textBudget
	textBudget = n
	return func() { textBudget = old }
}

// FormSizes returns, for each profile that Write would write of stacks,
// the sizes of its two forms as Write computes them to choose one and as
// they are written: sampled computed, sampled written, evented measured,
// evented written.
func FormSizes(p *profile.Profile, stacks []profile.ThreadStacks) ([][4]int64, error) {
	_, profs, err := prepare(p, stacks)
	if err != nil {
		return nil, err
	}
	var out [][4]int64
	for _, s := range profs {
		sampled := &emitter{bw: bufio.NewWriter(io.Discard)}
		s.sampled(sampled)
		measured := &emitter{}
		s.evented(measured, math.MaxInt64)
		evented := &emitter{bw: bufio.NewWriter(io.Discard)}
		s.evented(evented, math.MaxInt64)
		out = append(out, [4]int64{s.sampledSize(), sampled.size(), measured.size(), evented.size()})
	}
	return out, nil
}

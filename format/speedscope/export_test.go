package speedscope

import (
	"io"

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

// ScaleDecimal exports scaleDecimal.
var ScaleDecimal = scaleDecimal

// SetTextBudget sets the bytes of stack texts the sampled form keeps, and
// returns a function that restores it.
func SetTextBudget(n int) (restore func()) {
	old := textBudget
	textBudget = n
	return func() { textBudget = old }
}

package speedscope_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
)

// TestParseLinear checks that ParseBytes reads shapes that stress its tree
// of stacks within the fuzz targets' budget (fuzzcheck: 100 ms per MiB),
// at a size (4 MiB) where a superlinear cost shows:
//
//   - one deep stack, a new node at every frame: the reader looked each
//     frame up in a map of children, a cache miss a frame, and took 200 to
//     250 ms of CPU per MiB (7.7 s of wall-clock time for this one on a
//     loaded machine);
//   - a wide node (many children) followed by many small profiles of two
//     children each: the reader cleared its map of children at every
//     profile, at a cost that grows with the map;
//   - an evented profile that opens frames at increasing times and never
//     closes them.
func TestParseLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 4 MiB inputs")
	}
	const size = 4 << 20
	head := `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[`
	frames := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":"f` + strconv.Itoa(i) + `"}`)
		}
		return b.String()
	}
	// sampled returns a sampled profile of the given stacks, each of weight 1.
	sampled := func(stacks ...string) string {
		return `{"type":"sampled","unit":"none","samples":[` + strings.Join(stacks, ",") +
			`],"weights":[` + strings.TrimSuffix(strings.Repeat("1,", len(stacks)), ",") + `]}`
	}
	deep := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" }

	const nframes = 1 << 16
	wide := make([]string, nframes)
	for i := range wide {
		wide[i] = "[" + strconv.Itoa(i) + "]"
	}
	var wideThenMany strings.Builder
	wideThenMany.WriteString(head + frames(nframes) + `]},"profiles":[` + sampled(wide...))
	two := "," + sampled("[0]", "[1]")
	for wideThenMany.Len() < size {
		wideThenMany.WriteString(two)
	}
	wideThenMany.WriteString("]}")

	var evented strings.Builder
	evented.WriteString(head + frames(1) + `]},"profiles":[{"type":"evented","unit":"none","events":[`)
	for i := 0; evented.Len() < size; i++ {
		if i > 0 {
			evented.WriteByte(',')
		}
		evented.WriteString(`{"type":"O","frame":0,"at":` + strconv.Itoa(i) + `}`)
	}
	evented.WriteString("]}]}")

	for _, tc := range []struct{ name, input string }{
		{"deep stack", head + frames(1) + `]},"profiles":[` + sampled(deep(size/2)) + "]}"},
		{"wide node, then many profiles", wideThenMany.String()},
		{"evented, never closed", evented.String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.input)
			p, err := fuzzcheck.Parse(t, data, speedscope.ParseBytes)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Threads) == 0 || p.Samples.Len() == 0 {
				t.Fatalf("%d threads, %d samples", len(p.Threads), p.Samples.Len())
			}
		})
	}
}

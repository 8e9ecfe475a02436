package v8

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// TestSampleTimes checks the times of a profile whose deltas are read as
// int32 µs and made into times in place (profile.Times, compact), against
// times summed here, and the fall-backs to ns: a fraction, a delta beyond
// ±35 minutes, a time beyond ±35 minutes of the start that the deltas
// reach only by summing, negative deltas (sorted), and a time out of range;
// a recording longer than 35 minutes stays compact, its blocks of samples
// each with a base of its own.
// Each is read in order and with its arrays read ahead.
func TestSampleTimes(t *testing.T) {
	defer func(n int) { parallelTailBytes = n }(parallelTailBytes)
	twenty := int64(20 * 60 * 1e6) // 20 minutes in µs
	for _, c := range []struct {
		name    string
		start   int64 // µs; 0 for 1.7e12
		deltas  []string
		compact bool
		err     string
	}{
		{"whole µs", 0, []string{"5", "125", "0", "130", "1e3"}, true, ""},
		{"a fraction", 0, []string{"5", "125.5", "130"}, false, ""},
		{"a delta beyond 35 min", 0, []string{"5", fmt.Sprint(2 * twenty), "130"}, false, ""},
		{"a sum beyond 35 min", 0, []string{"5", fmt.Sprint(twenty), fmt.Sprint(twenty), "1", "7"}, false, ""},
		{"back and forth", 0, []string{"5", fmt.Sprint(-twenty), fmt.Sprint(twenty), "-3", "8"}, true, ""},
		{"35 min before the first, in one block", 0, []string{fmt.Sprint(-twenty), fmt.Sprint(-twenty), "9"}, true, ""},
		// 9,000 samples 500 ms apart: 75 minutes, over three blocks.
		{"a long recording", 0, strings.Split(strings.Repeat("500000,", 8999)+"500000", ","), true, ""},
		{"out of range, big deltas", 0, []string{"5", "4611686018427387", "1"}, false, "timeDeltas[1]: time"},
		// 2^62 ns is 4611686018427387.904 µs.
		{"out of range, small deltas", 4611686018427000, []string{"300", "80", "8", "1"}, false, "timeDeltas[2]: time"},
	} {
		start := c.start
		if start == 0 {
			start = 1_700_000_000_000
		}
		// The expected times, in ns: the µs sums (the fraction is 0.5 µs).
		// Each case as it is, and with every third sample naming a node
		// not reachable from the root (dropped: the times after it move).
		for _, dropEvery := range []int{0, 3} {
			var samples []string
			var want []profile.Time
			acc := start * 1000
			for i, d := range c.deltas {
				var f float64
				fmt.Sscan(d, &f)
				acc += int64(f * 1000)
				if dropEvery > 0 && i%dropEvery == 1 {
					samples = append(samples, "3")
					continue
				}
				samples = append(samples, "2")
				want = append(want, profile.Time(acc))
			}
			doc := `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},` +
				`{"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1}},` +
				`{"id":3,"callFrame":{"functionName":"lost","scriptId":"1","url":"a.js","lineNumber":2,"columnNumber":1}}],` +
				fmt.Sprintf(`"startTime":%d,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}`, start, start+10, strings.Join(samples, ","), strings.Join(c.deltas, ","))
			for _, ahead := range []int{1 << 62, 0} {
				parallelTailBytes = ahead
				p, err := ParseBytes([]byte(doc), Limits{})
				what := fmt.Sprintf("%s (read ahead %t, dropping every %d)", c.name, ahead == 0, dropEvery)
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) {
						t.Errorf("%s: got %v, want an error with %q", what, err, c.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sorted := append([]profile.Time(nil), want...)
				for i := 1; i < len(sorted); i++ { // insertion sort, stable, as DevTools sorts
					for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
						sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
					}
				}
				if got := p.Samples.Time.Wide(); fmt.Sprint(got) != fmt.Sprint(sorted) {
					t.Errorf("%s: times %v, want %v", what, got, sorted)
				}
				// Moved down over many blocks, times keep the bases of the
				// blocks they land in: 75 minutes less a third do not fit.
				compact := c.compact && !(dropEvery > 0 && len(c.deltas) > 4096)
				if p.Samples.Time.Compact() != compact {
					t.Errorf("%s: compact %t, want %t", what, p.Samples.Time.Compact(), compact)
				}
				if err := p.Validate(); err != nil {
					t.Errorf("%s: %v", what, err)
				}
				backwards := 0
				for i := 1; i < len(want); i++ {
					if want[i] < want[i-1] {
						backwards++
					}
				}
				if got := p.Diagnostics.Count("negative-delta"); got != int64(backwards) {
					t.Errorf("%s: %d samples counted out of order, want %d", what, got, backwards)
				}
			}
		}
	}
}

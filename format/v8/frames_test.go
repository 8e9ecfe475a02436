package v8

import (
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// TestFrameTable looks up frames of the shapes that make a table slow or
// wrong: dense runs of ids (consecutive string ids and lines), many frames
// of one name (the byName shortcut must compare the whole frame), and
// every frame twice. Each must get one index, the first time's, and no
// frame may sit far from where it hashes.
func TestFrameTable(t *testing.T) {
	var want []callFrame
	for i := range 120_000 {
		want = append(want, callFrame{name: profile.StringID(i), url: profile.StringID(i % 97), script: profile.StringID(i%97 + 20), line: int32(i * 37 % 90_000), col: int32(i * 13 % 120)})
	}
	for i := range 30_000 { // one name ("" of anonymous functions), told apart by the rest
		want = append(want, callFrame{name: 0, url: profile.StringID(i % 7), script: profile.StringID(i % 7), line: int32(i), col: -1})
	}
	for i := range 1000 { // a frame for each code type, line and column unknown
		want = append(want, callFrame{name: 5, url: 3, script: 4, line: -1, col: -1, codeType: profile.StringID(1000 + i)})
	}
	// Each table draws multipliers of its own: four of them, as a hash that
	// is bad for some draws fails a run now and then (the sum alone did,
	// with a mean probe of 3.5, once in CI: 2 tables in 400 past 2).
	for range 4 {
		var tab frameTable
		for pass := range 2 {
			for i, f := range want {
				if got := tab.index(f); got != int32(i) {
					t.Fatalf("pass %d: frame %d %+v: index %d", pass, i, f, got)
				}
			}
		}
		if len(tab.frames) != len(want) {
			t.Fatalf("%d frames, want %d", len(tab.frames), len(want))
		}
		// How far each frame sits from its slot (linear probing): over 400
		// tables, a mean of 0.21 and a longest of 19 at worst.
		mask := len(tab.slots) - 1
		maxDist, sum := 0, 0
		for i, k := range tab.slots {
			if k == 0 {
				continue
			}
			d := (i - tab.hash(&tab.frames[k-1])) & mask
			maxDist, sum = max(maxDist, d), sum+d
		}
		t.Logf("probe distances: max %d, mean %.2f", maxDist, float64(sum)/float64(len(want)))
		if mean := float64(sum) / float64(len(want)); maxDist > 100 || mean > 1 {
			t.Errorf("probe distances: max %d, mean %.2f; want at most 100 and 1", maxDist, mean)
		}
	}
}

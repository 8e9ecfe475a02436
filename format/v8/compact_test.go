package v8

import (
	"testing"

	"github.com/jsprof/jsprof/internal/proftest"
)

// The build reads the raw nodes it compacted after giving back the pages
// past them: a profile large enough for pages to go back (60 k nodes:
// 2.4 MB past 1.9 MB of compacted nodes) reads the same with and without.
func TestCompactGivesBackOnlyTheRest(t *testing.T) {
	data := proftest.LargeCPUProfile(7, 60_000, 80_000)
	read := func() string {
		t.Helper()
		p, err := ParseBytes(data, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return p.String()
	}
	calls := 0
	orig := discard
	defer func() { discard = orig }()
	discard = func(b []byte) {
		calls++
		if len(b) < 40*60_000 {
			t.Errorf("gave back %d bytes, want at least the 40 bytes a node past the compacted ones", len(b))
		}
		orig(b)
	}
	with := read()
	if calls != 1 {
		t.Fatalf("the build gave back %d stretches, want 1", calls)
	}
	discard = func([]byte) {}
	if without := read(); with != without {
		t.Error("the profile read with the raw table's rest given back differs from the one read without")
	}
}

package profile

import "testing"

// TestNodesBounds checks bounds against a loop over At, in both widths.
func TestNodesBounds(t *testing.T) {
	for _, ns := range [][]NodeID{{7}, {3, 9, 1, 4}, {70000, 2, 65536}, {5, 5, 5}} {
		c := NodesOf(ns...)
		lo, hi := c.bounds()
		wlo, whi := c.At(0), c.At(0)
		for _, n := range c.All() {
			wlo, whi = min(wlo, n), max(whi, n)
		}
		if lo != wlo || hi != whi {
			t.Errorf("%v: bounds %d, %d; want %d, %d", ns, lo, hi, wlo, whi)
		}
	}
	if lo, hi := (Nodes{}).bounds(); lo != 0 || hi != -1 {
		t.Errorf("empty: bounds %d, %d", lo, hi)
	}
}

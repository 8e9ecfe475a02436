package compare_test

import (
	"context"
	"testing"

	"github.com/jsprof/jsprof/compare"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/session"
)

// TestPathsDeepLinear checks that the call paths of two deep profiles are
// compared in time and memory linear in the profiles: each path was keyed
// by the string of its whole path and its functions listed whole, a chain
// of 20 k frames against itself took 4 s and 2 GB, a comb 9 s and 4 GB.
// The sides' trees are built first, outside the measure.
func TestPathsDeepLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("deep profiles of 20 k frames")
	}
	ctx := context.Background()
	for _, shape := range proftest.DeepShapes {
		t.Run(shape, func(t *testing.T) {
			data, err := proftest.DeepCPUProfile(shape, 20_000)
			if err != nil {
				t.Fatal(err)
			}
			var sides [2]compare.Side
			for i := range sides {
				p, err := format.Parse(data, format.Options{})
				if err != nil {
					t.Fatal(err)
				}
				s := session.New(shape, p, session.Options{})
				sides[i] = compare.Side{Threads: s.Threads()}
				// Warm the session's tree and functions.
				if _, err := compare.Diff(ctx, sides[i], sides[i], compare.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			var res *compare.Result
			fuzzcheck.Speed(t, data, func() {
				res, err = compare.Diff(ctx, sides[0], sides[1], compare.Options{Paths: true})
			})
			if err != nil {
				t.Fatal(err)
			}
			// A path a tree node, all the same; the deepest is the chain.
			deepest := int32(0)
			for i := range res.Paths {
				p := &res.Paths[i]
				if p.Status() != compare.Same {
					t.Fatalf("path %d: %v, want same", i, p.Status())
				}
				deepest = max(deepest, p.Depth)
			}
			wantPaths, wantDepth := 20_000, int32(20_000)
			switch shape {
			case "comb":
				wantPaths, wantDepth = 40_000, 20_001
			}
			if len(res.Paths) != wantPaths || deepest != wantDepth {
				t.Errorf("%d paths, the deepest %d functions; want %d and %d", len(res.Paths), deepest, wantPaths, wantDepth)
			}
		})
	}
}

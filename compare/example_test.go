package compare_test

import (
	"context"
	"fmt"

	"github.com/jsprof/jsprof/compare"
	"github.com/jsprof/jsprof/session"
)

// A server or tool compares two loaded profiles and lists the biggest
// changes of self time.
func Example() {
	ctx := context.Background()
	var sides [2]compare.Side
	for i, name := range []string{"../testdata/node/mix.cpuprofile", "../testdata/node/recursion.cpuprofile"} {
		s, err := session.Load(ctx, name, session.Options{})
		if err != nil {
			panic(err)
		}
		sides[i] = compare.Side{Threads: s.Threads()}
	}
	res, err := compare.Diff(ctx, sides[0], sides[1], compare.Options{})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Functions[:3] {
		fmt.Printf("%-20s %-8v %+9.3f ms\n", f.Key.Name, f.Status(), f.Delta().Self.Millis())
	}
	// Output:
	// ackermann            added     +362.744 ms
	// (garbage collector)  changed   -316.654 ms
	// allocate             removed   -267.534 ms
}

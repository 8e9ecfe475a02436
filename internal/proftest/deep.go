package proftest

import (
	"fmt"
	"strings"
)

// DeepShapes are the names DeepCPUProfile knows: stacks as deep as the
// profile has nodes, which make any per-stack walk of the frames quadratic.
var DeepShapes = []string{"chain", "zigzag", "recursion", "comb"}

// DeepCPUProfile returns a .cpuprofile of n call frames (n ≥ 2) in one
// chain under the root, sampled at 10 µs, of one of the DeepShapes:
//   - chain: n distinct functions, each node sampled once, outermost first
//     (each stack one frame deeper than the last);
//   - zigzag: the same chain, its n samples alternating between the deepest
//     node and the root's child;
//   - recursion: one function n deep, each node sampled once, outermost
//     first;
//   - comb: the chain with a child "f" at every depth, each f sampled once,
//     outermost first (2n nodes).
func DeepCPUProfile(shape string, n int) ([]byte, error) {
	if n < 2 {
		return nil, fmt.Errorf("deep shape of %d frames: want at least 2", n)
	}
	var b strings.Builder
	b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]}`)
	// Chain node i (2 … n+1) has id i; comb's f under chain node i has id
	// n+i.
	for i := 2; i <= n+1; i++ {
		name, line := fmt.Sprintf("f%d", i), i
		if shape == "recursion" {
			name, line = "rec", 1
		}
		fmt.Fprintf(&b, `,{"id":%d,"callFrame":{"functionName":%q,"scriptId":"1","url":"a.js","lineNumber":%d,"columnNumber":0}`, i, name, line)
		var kids []string
		if i <= n {
			kids = append(kids, fmt.Sprint(i+1))
		}
		if shape == "comb" {
			kids = append(kids, fmt.Sprint(n+i))
		}
		if len(kids) > 0 {
			b.WriteString(`,"children":[` + strings.Join(kids, ",") + `]`)
		}
		b.WriteString(`}`)
	}
	if shape == "comb" {
		for i := 2; i <= n+1; i++ {
			fmt.Fprintf(&b, `,{"id":%d,"callFrame":{"functionName":"f","scriptId":"1","url":"b.js","lineNumber":1,"columnNumber":0}}`, n+i)
		}
	}
	var samples []string
	for i := range n {
		switch shape {
		case "chain", "recursion":
			samples = append(samples, fmt.Sprint(i+2))
		case "zigzag":
			if i%2 == 0 {
				samples = append(samples, fmt.Sprint(n+1))
			} else {
				samples = append(samples, "2")
			}
		case "comb":
			samples = append(samples, fmt.Sprint(n+i+2))
		default:
			return nil, fmt.Errorf("unknown deep shape %q (have %s)", shape, strings.Join(DeepShapes, ", "))
		}
	}
	fmt.Fprintf(&b, `],"startTime":0,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}`,
		10*n, strings.Join(samples, ","), strings.TrimSuffix(strings.Repeat("10,", n), ","))
	return []byte(b.String()), nil
}

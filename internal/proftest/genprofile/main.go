// Command genprofile writes generated .cpuprofile files for the performance
// benchmarks (bench/shapes.sh, BENCHMARKS.md):
//
//	go run ./internal/proftest/genprofile -shape typescript -o /tmp/ts.cpuprofile
//	go run ./internal/proftest/genprofile -shape samples-heavy -scale 10 -o /tmp/big.cpuprofile
//	go run ./internal/proftest/genprofile -repeat real.cpuprofile -size 246 -o /tmp/long.cpuprofile
//	go run ./internal/proftest/genprofile -deep chain -n 20000 -o /tmp/chain.cpuprofile
//
// Shapes: typescript (deep stacks, 160k nodes, 100 µs sampling), many-nodes
// (350k nodes), samples-heavy (3 M samples, 3k nodes). -repeat keeps a real
// profile's nodes and repeats its samples up to -size MB (10^6 bytes). -deep
// writes stacks -n frames deep (chain, zigzag, recursion, comb), for the
// linearity checks of the commands and writers.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
)

func main() {
	shape := flag.String("shape", "", "shape to generate: "+shapeNames())
	scale := flag.Float64("scale", 1, "multiply the shape's node and sample counts")
	seed := flag.Uint64("seed", 1, "random seed")
	repeat := flag.String("repeat", "", "repeat this .cpuprofile's samples instead of generating")
	size := flag.Int64("size", 246, "with -repeat: approximate size in MB (10^6 bytes)")
	deep := flag.String("deep", "", "deep shape to generate: "+strings.Join(proftest.DeepShapes, ", "))
	n := flag.Int("n", 20_000, "with -deep: frames on the deepest stack")
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	given := 0
	for _, s := range []string{*shape, *repeat, *deep} {
		if s != "" {
			given++
		}
	}
	if *out == "" || given != 1 {
		fmt.Fprintln(os.Stderr, "genprofile: give -o and one of -shape, -repeat or -deep")
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fail(err)
	}
	var what string
	if *deep != "" {
		data, derr := proftest.DeepCPUProfile(*deep, *n)
		if derr != nil {
			fail(derr)
		}
		_, err = f.Write(data)
		what = fmt.Sprintf("deep shape %s, %d frames", *deep, *n)
	} else if *shape != "" {
		sh, ok := proftest.ShapeByName(*shape)
		if !ok {
			fail(fmt.Errorf("unknown shape %q (have %s)", *shape, shapeNames()))
		}
		err = proftest.WriteShapedCPUProfile(f, sh, *scale, *seed)
		what = fmt.Sprintf("shape %s ×%g", sh.Name, *scale)
	} else {
		var src struct {
			Nodes      json.RawMessage `json:"nodes"`
			StartTime  int64           `json:"startTime"`
			Samples    []int64         `json:"samples"`
			TimeDeltas []int64         `json:"timeDeltas"`
		}
		data, rerr := input.ReadFile(*repeat, nil, input.Options{})
		if rerr != nil {
			fail(rerr)
		}
		if jerr := json.Unmarshal(data, &src); jerr != nil {
			fail(fmt.Errorf("%s: %v", *repeat, jerr))
		}
		if len(src.Samples) == 0 || len(src.Samples) != len(src.TimeDeltas) {
			fail(fmt.Errorf("%s: need samples and timeDeltas of the same non-zero length", *repeat))
		}
		var n int
		n, err = proftest.RepeatSamples(f, src.Nodes, src.StartTime, src.Samples, src.TimeDeltas, *size*1_000_000)
		what = fmt.Sprintf("%s's samples repeated, %d samples", *repeat, n)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fail(err)
	}
	st, _ := os.Stat(*out)
	fmt.Printf("%s: %d bytes (%s)\n", *out, st.Size(), what)
}

func shapeNames() string {
	var names []string
	for _, s := range proftest.Shapes {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genprofile:", err)
	os.Exit(1)
}

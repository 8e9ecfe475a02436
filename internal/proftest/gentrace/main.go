// Command gentrace writes a large synthetic Chrome trace for benchmarks:
//
//	go run ./internal/proftest/gentrace -size 2000 -o /tmp/big.json   # about 2 GB
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/jsprof/jsprof/internal/proftest"
)

func main() {
	size := flag.Int64("size", 100, "approximate size in MB (10^6 bytes)")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gentrace: -o is required")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentrace:", err)
		os.Exit(1)
	}
	n, samples, err := proftest.WriteLargeTrace(f, *seed, *size*1_000_000)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentrace:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d bytes, %d samples\n", *out, n, samples)
}

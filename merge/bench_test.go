package merge_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/merge"
)

// BenchmarkMerge merges N generated .cpuprofile files of about 1 MB each
// (3,000 nodes, 35,000 samples; 16 distinct programs, as a fleet runs a
// few builds) and writes the result as pprof. N is $JSPROF_MERGE_N,
// default 8 (CI runs it once); the figures in BENCHMARKS.md are for 1,000:
//
//	JSPROF_MERGE_N=1000 go test -run='^$' -bench=Merge -benchtime=1x ./merge/
func BenchmarkMerge(b *testing.B) {
	n := 8
	if s := os.Getenv("JSPROF_MERGE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("JSPROF_MERGE_N=%q: want a positive count", s)
		}
	}
	dir := b.TempDir()
	var names []string
	var size int64
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("p%04d.cpuprofile", i))
		if i < 16 {
			data := proftest.LargeCPUProfile(uint64(i), 3000, 35000)
			if err := os.WriteFile(name, data, 0o644); err != nil {
				b.Fatal(err)
			}
		} else if err := os.Link(names[i%16], name); err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(name)
		size += st.Size()
		names = append(names, name)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := merge.Merge(context.Background(), names, merge.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.Write(io.Discard, res.Profile, res.Stacks(), pprof.Options{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Profile.Nodes)), "nodes")
	}
	b.ReportMetric(float64(n), "inputs")
}

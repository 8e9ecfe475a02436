package cli_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
)

// BenchmarkSummary times "jsprof summary" end to end (read, parse, DevTools
// reconstruction, trees, output) on the 48 MB DevTools large-profile
// (decompressed first, as bench/compare.sh does) and on a generated profile.
func BenchmarkSummary(b *testing.B) {
	run := func(b *testing.B, path string) {
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			var stderr strings.Builder
			if code := cli.Run(context.Background(), []string{"summary", "--json", path}, nil, io.Discard, &stderr); code != 0 {
				b.Fatalf("exit %d: %s", code, stderr.String())
			}
		}
	}
	b.Run("large-profile", func(b *testing.B) {
		src := proftest.Corpus(b, "devtools/large-profile.cpuprofile.gz")
		data, err := input.ReadFile(src, nil, input.Options{})
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "large-profile.cpuprofile")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		run(b, path)
	})
	for _, sh := range proftest.Shapes {
		// The shapes of bench/shapes.sh at a quarter of their size
		// (bench/shapes.sh times them whole against the DevTools engine).
		b.Run(sh.Name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), sh.Name+".cpuprofile")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := proftest.WriteShapedCPUProfile(f, sh, 0.25, 1); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			run(b, path)
		})
	}
	b.Run("generated", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "generated.cpuprofile")
		if err := os.WriteFile(path, proftest.LargeCPUProfile(2, 150_000, 150_000), 0o644); err != nil {
			b.Fatal(err)
		}
		run(b, path)
	})
}

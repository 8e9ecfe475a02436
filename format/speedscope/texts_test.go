package speedscope_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/session"
)

// TestSampledTexts writes the sampled form of testdata profiles with the
// stack texts made once per path (the whole budget, a few bytes of it,
// none): the files must be the same byte for byte.
func TestSampledTexts(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(proftest.RepoRoot(), "testdata", "node", "*.cpuprofile"))
	if len(paths) == 0 {
		t.Fatal("no testdata profiles")
	}
	for _, path := range paths {
		p, err := format.ReadFile(path, nil, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := session.New(path, p, session.Options{})
		for _, vo := range []view.Options{{}, {View: view.JS}} {
			stacks := threadStacks(t, s, vo)
			var want bytes.Buffer
			restore := speedscope.SetTextBudget(0)
			err := speedscope.WriteSampled(&want, s.Profile, stacks, speedscope.Options{})
			restore()
			if err != nil {
				t.Fatal(err)
			}
			for _, budget := range []int{200, 32 << 20} {
				var got bytes.Buffer
				restore := speedscope.SetTextBudget(budget)
				err := speedscope.WriteSampled(&got, s.Profile, stacks, speedscope.Options{})
				restore()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%s, view %v, budget %d: %d bytes differ from the %d written without texts", filepath.Base(path), vo.View, budget, got.Len(), want.Len())
				}
			}
		}
	}
}

package svg_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
	"github.com/jsprof/jsprof/tools/browser"
)

func browserDiffSide(t *testing.T, name string) svg.DiffSide {
	t.Helper()
	s, err := session.Load(context.Background(), name, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := s.Threads()[0].Stacks(context.Background(), view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Profile
	return svg.DiffSide{Profile: p, Stacks: ts, Key: func(f profile.FrameID) string {
		fr := &p.Frames[f]
		return fmt.Sprintf("%q %q %d %d", p.Str(fr.Name), p.Str(fr.URL), fr.Line, fr.Column)
	}}
}

// The differential flame graph in headless Chromium: it loads with no
// parse error, the browser finds every frame, frames fill the plotting
// width, the zoom script works and throws nothing, and it renders to a
// non-empty screenshot (kept in the test's artifact directory).
func TestBrowserDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short mode")
	}
	bin := browser.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	base, new := browserDiffSide(t, "../../testdata/node/mix.cpuprofile"), browserDiffSide(t, "../../testdata/node/recursion.cpuprofile")
	for _, reverse := range []bool{false, true} {
		out.Reset()
		if err := svg.WriteDiff(&out, base, new, svg.DiffOptions{Reverse: reverse}); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "diff.svg")
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		pg, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := pg.AddInitScript(ctx, recordDialogs); err != nil {
			t.Fatal(err)
		}
		if err := pg.NavigateFile(ctx, file); err != nil {
			t.Fatal(err)
		}
		var got inspected
		if err := pg.Eval(ctx, inspect, &got); err != nil {
			t.Fatal(err)
		}
		want := bytes.Count(out.Bytes(), []byte(`<g class="f"`))
		if got.ParseErrors != 0 || got.Frames != want || got.Rects != want || math.Abs(got.Plotted-plotW) > 1 {
			t.Errorf("reverse %v: %d parse errors, %d frames and %d rects (want %d), %g px plotted (want %g)",
				reverse, got.ParseErrors, got.Frames, got.Rects, want, got.Plotted, plotW)
		}
		var z zoomed
		if err := pg.Eval(ctx, zoom, &z); err != nil {
			t.Fatal(err)
		}
		if math.Abs(z.Zoomed-plotW) > 0.01 || z.After != z.Before || z.ShownAfter != z.Total {
			t.Errorf("zoom: %+v", z)
		}
		if e := pg.Exceptions(); len(e) != 0 {
			t.Errorf("uncaught exceptions: %q", e)
		}
		if err := pg.SetViewport(ctx, 1200, 500, 1); err != nil {
			t.Fatal(err)
		}
		png, err := pg.Screenshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 5000 {
			t.Errorf("screenshot: %d bytes", len(png))
		}
		os.WriteFile(filepath.Join(t.ArtifactDir(), fmt.Sprintf("diff-reverse-%v.png", reverse)), png, 0o644)
		t.Logf("reverse %v: %d frames drawn, zoom %g → %g px, screenshot %d bytes", reverse, want, z.Before, z.Zoomed, len(png))
	}
}

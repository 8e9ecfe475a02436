package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jsprof/jsprof/tools/browser"
)

// The harness itself works: an init script runs in an SVG document before
// the document's own script, and both an alert that the init script
// intercepts and a real dialog are seen. Without this, "no alert fired" in
// the tests that use the package would prove nothing.
func TestDetectsScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short mode")
	}
	bin := browser.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b, err := browser.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := t.TempDir()
	svg := filepath.Join(dir, "x.svg")
	const doc = `<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/><script>alert("from svg");</script></svg>`
	if err := os.WriteFile(svg, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		hook    bool // intercept alert in an init script
		dialogs int
	}{
		{name: "hooked", hook: true, dialogs: 0},
		{name: "dialog", hook: false, dialogs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := b.NewPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tc.hook {
				if err := pg.AddInitScript(ctx, `window.__alerts = []; window.alert = m => window.__alerts.push(String(m));`); err != nil {
					t.Fatal(err)
				}
			}
			if err := pg.NavigateFile(ctx, svg); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Rects  int      `json:"rects"`
				Alerts []string `json:"alerts"`
			}
			if err := pg.Eval(ctx, `({rects: document.querySelectorAll("rect").length, alerts: window.__alerts || []})`, &got); err != nil {
				t.Fatal(err)
			}
			if got.Rects != 1 {
				t.Errorf("got %d rects, want 1", got.Rects)
			}
			if tc.hook && (len(got.Alerts) != 1 || got.Alerts[0] != "from svg") {
				t.Errorf("intercepted alerts %q, want [from svg]", got.Alerts)
			}
			if d := pg.Dialogs(); len(d) != tc.dialogs {
				t.Errorf("got dialogs %+v, want %d", d, tc.dialogs)
			}
		})
	}
}

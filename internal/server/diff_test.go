package server_test

import (
	"net/http/httptest"
	"testing"

	"github.com/jsprof/jsprof/internal/server"
	"github.com/jsprof/jsprof/report"
)

// /api/diff's rows are `jsprof diff --json`'s for the same pair, view and
// transforms; without --diff the endpoint is absent (404) and /api/info
// names no diff.
func TestDiffEndpoint(t *testing.T) {
	t.Parallel()
	base, nw := testdata("mix.cpuprofile"), testdata("async.cpuprofile")
	pend := server.NewPending(-1)
	pend.Done(load(t, nw), nil)
	h := server.New(load(t, base), server.Options{Diff: pend, DiffName: nw})
	var info struct {
		report.ViewerInfo
		Diff string `json:"diff"`
	}
	get(t, h, "/api/info", &info)
	if info.Diff != nw {
		t.Errorf("info.diff = %q, want %q", info.Diff, nw)
	}
	for _, tc := range []struct {
		name, query string
		flags       []string
	}{
		{"plain", "", nil},
		{"js", "view=js", []string{"--view", "js"}},
		{"range", "rfrom=5&rto=40", []string{"--from", "5", "--to", "40"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want report.Diff
			runCLI(t, &want, append([]string{"diff", "--json", base, nw}, tc.flags...)...)
			var got server.ViewerDiff
			get(t, h, "/api/diff?"+tc.query, &got)
			if len(got.Functions) == 0 {
				t.Fatal("no rows")
			}
			if !equalJSON(got.Functions, want.Functions) {
				t.Errorf("rows differ from jsprof diff --json:\n got %s\nwant %s", js(got.Functions), js(want.Functions))
			}
			if got.BaseTotalMs != want.Base.TotalMs || got.NewTotalMs != want.New.TotalMs {
				t.Errorf("totals %v %v, want %v %v", got.BaseTotalMs, got.NewTotalMs, want.Base.TotalMs, want.New.TotalMs)
			}
		})
	}
	plain := server.New(load(t, base), server.Options{})
	req := httptest.NewRequest("GET", "/api/diff", nil)
	req.Host = "127.0.0.1:1234"
	rec := httptest.NewRecorder()
	plain.ServeHTTP(rec, req)
	if rec.Code != 404 {
		t.Errorf("/api/diff without --diff: %d, want 404", rec.Code)
	}
}

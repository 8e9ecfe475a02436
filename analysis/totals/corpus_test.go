package totals_test

import (
	"slices"
	"testing"

	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// The XS corpus profile (docs/formats.md §3.2, §3.4): a DAG already freed of cycles
// by XS, in which fib ← {callerA, (anonymous-656)}, helper ← {callerA,
// callerB} and Array.from ← {jsonWork, sortWork}; helper's only callee is
// Math.sqrt, fib calls nothing. 1828 samples from 1,251 µs after startTime
// to endTime: 3,067,235 µs of durations.
func TestXSCorpus(t *testing.T) {
	t.Parallel()
	p, err := format.ReadFile(proftest.Corpus(t, "xs/xs_workload.cpuprofile"), nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := totals.Default(p, 0); s != totals.XSBug {
		t.Errorf("Default: got %v, want xsbug", s)
	}
	th := &p.Threads[0]
	ss := p.ThreadSamples(0)
	sampled := th.End - ss.Time.At(0) // the sum of all durations
	if sampled != 3_067_235*us {
		t.Fatalf("sampled time: got %v, want 3.067235s", sampled.Sub(0))
	}
	xs, vs := byName(t, p, totals.XSBug), byName(t, p, totals.VSCode)

	var selfSum profile.Time
	for name, r := range xs {
		if r.Self != vs[name].Self {
			t.Errorf("%s: xsbug self %v, vscode self %v; want equal", name, r.Self.Sub(0), vs[name].Self.Sub(0))
		}
		if r.Total > sampled {
			t.Errorf("%s: xsbug total %v above the %v sampled", name, r.Total.Sub(0), sampled.Sub(0))
		}
		if r.Total < r.Self {
			t.Errorf("%s: xsbug total %v below its self %v", name, r.Total.Sub(0), r.Self.Sub(0))
		}
		selfSum += r.Self
	}
	if selfSum != sampled {
		t.Errorf("sum of self: got %v, want %v", selfSum.Sub(0), sampled.Sub(0))
	}
	// Everything reaches the host, less the shares under 1 µs. None is
	// dropped here: every hit record lasts at least 1,250 µs and every path
	// to the host splits at most once (in two), so the host gets exactly the
	// sampled time.
	if host := xs["(host)"].Total; host != sampled {
		t.Errorf("(host): xsbug total %v, want %v", host.Sub(0), sampled.Sub(0))
	}

	// Exact figures, all in whole µs: halves of even µs counts.
	fib, sqrt := xs["fib"].Self, xs["Math.sqrt"].Self // 128,456 µs and 516,378 µs
	from := xs["(anonymous-648)"].Self + xs["(anonymous-650)"].Self + xs["(gc)"].Self
	for _, c := range []struct {
		name       string
		xsbug, vsc profile.Time
	}{
		{"fib", fib, fib},
		{"helper", sqrt, sqrt},
		{"callerA", (fib + sqrt) / 2, fib + sqrt}, // 322,417 µs; 644,834 µs
		{"callerB", sqrt / 2, sqrt},               // 258,189 µs; 516,378 µs
		{"Array.from", from, from},                // 2,018,793 µs
		{"jsonWork", xs["JSON.parse"].Self + xs["JSON.stringify"].Self + from/2, 0},
		{"(host)", sampled, sampled + from + sqrt + fib}, // VS Code: 5,730,862 µs
	} {
		if got := xs[c.name].Total; got != c.xsbug {
			t.Errorf("xsbug %s: got %v, want %v", c.name, got.Sub(0), c.xsbug.Sub(0))
		}
		if got := vs[c.name].Total; c.vsc != 0 && got != c.vsc {
			t.Errorf("vscode %s: got %v, want %v", c.name, got.Sub(0), c.vsc.Sub(0))
		}
	}
	if vs["(host)"].Total <= th.End-th.Start {
		t.Errorf("vscode (host): got %v, want more than the profile's %v (the DAG double counts)", vs["(host)"].Total.Sub(0), (th.End - th.Start).Sub(0))
	}

	dag, removed := totals.RemoveCycles(p, 0)
	if removed != 0 || !slices.Equal(dag, p.Edges) {
		t.Errorf("RemoveCycles: %d removed, %d of %d edges kept; want 0 removed (XS removed the cycles)", removed, len(dag), len(p.Edges))
	}

	dt := devtools(t, p)
	names := make([]string, 0, len(xs))
	for name := range xs {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return int(xs[b].Total - xs[a].Total) })
	t.Logf("%-24s %12s %12s | %12s | %12s | %12s", "function", "self", "self(DT)", "total DT", "total VSCode", "total xsbug")
	for _, n := range names {
		t.Logf("%-24s %12v %12v | %12v | %12v | %12v", n, xs[n].Self.Sub(0), dt[n].Self.Sub(0), dt[n].Total.Sub(0), vs[n].Total.Sub(0), xs[n].Total.Sub(0))
	}
}

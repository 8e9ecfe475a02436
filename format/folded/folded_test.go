package folded_test

import (
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/folded"
)

// The folded output's weights add up to jsprof's totals: per leaf to the
// self times, overall to the sampled time, and per function (counted once
// per line) to the total times of the same stacks.
func TestFoldedSumsEqualTotals(t *testing.T) {
	p, err := format.ReadFile("../../testdata/node/mix.cpuprofile", nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	fw := folded.NewWriter(p)
	sb := calltree.NewStackBuilder(p, 0)
	view.Stacks(tl, view.Options{}, func(s view.Stack) {
		fw.Add(s.Frames, s.Weight)
		sb.Add(s.Frames, s.Weight)
	})
	tree := sb.Finish()
	var out strings.Builder
	if _, err := fw.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	lines, err := folded.Parse(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	self := map[string]int64{}
	total := map[string]int64{}
	for _, l := range lines {
		sum += l.Weight
		self[l.Frames[len(l.Frames)-1]] += l.Weight
		seen := map[string]bool{}
		for _, f := range l.Frames {
			if !seen[f] {
				total[f] += l.Weight
				seen[f] = true
			}
		}
	}
	if sum != int64(tree.TopDown[0].Total) {
		t.Errorf("folded weights add up to %d ns, the tree to %d", sum, tree.TopDown[0].Total)
	}
	// The whole-profile DevTools tree gives the same self and total times.
	exact := calltree.Build(tl)
	if int64(exact.TopDown[0].Total) != sum {
		t.Errorf("DevTools sampled time %d ns, folded %d", exact.TopDown[0].Total, sum)
	}
	for _, f := range exact.Funcs {
		label := folded.Label(p, &p.Frames[f.Frame])
		if self[label] != int64(f.Self) || total[label] != int64(f.Total) {
			t.Errorf("%s: folded self/total %d/%d, jsprof %d/%d", label, self[label], total[label], f.Self, f.Total)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"a;b", "a;b x", "a;b -3"} {
		if _, err := folded.Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: error %v", in, err)
		}
	}
}

// Folded stacks read back into a profile whose functions keep their self
// and total times exactly.
func TestParseProfileRoundTrip(t *testing.T) {
	p, err := format.ReadFile("../../testdata/node/recursion.cpuprofile", nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	fw := folded.NewWriter(p)
	view.Stacks(tl, view.Options{}, func(s view.Stack) { fw.Add(s.Frames, s.Weight) })
	var out strings.Builder
	fw.WriteTo(&out)
	q, err := folded.ParseProfile(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	tq, err := calls.NewTimeline(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, got := calltree.Build(tl), calltree.Build(tq)
	type st struct{ self, total int64 }
	byLabel := func(tr *calltree.Tree) map[string]st {
		m := map[string]st{}
		for _, f := range tr.Funcs {
			m[folded.Label(tr.Profile, &tr.Profile.Frames[f.Frame])] = st{int64(f.Self), int64(f.Total)}
		}
		return m
	}
	w, g := byLabel(want), byLabel(got)
	for k, v := range w {
		if g[k] != v {
			t.Errorf("%s: after folding %+v, before %+v", k, g[k], v)
		}
	}
	if !folded.Sniff([]byte(out.String())) || folded.Sniff([]byte(`{"nodes":[]}`)) {
		t.Error("Sniff")
	}
}

package folded_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/session"
)

// The folded output's weights add up to jsprof's totals: per leaf to the
// self times, overall to the sampled time, and per function (counted once
// per line) to the total times of the same stacks.
func TestFoldedSumsEqualTotals(t *testing.T) {
	s, err := session.Load(context.Background(), "../../testdata/node/mix.cpuprofile", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Profile
	fw := folded.NewWriter(p)
	addStacks(t, s, fw)
	tree, err := s.Threads()[0].Tree(context.Background(), view.Options{})
	if err != nil {
		t.Fatal(err)
	}
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
	// The DevTools tree gives the same self and total times.
	for _, f := range tree.Funcs {
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
	ctx := context.Background()
	s, err := session.Load(ctx, "../../testdata/node/recursion.cpuprofile", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fw := folded.NewWriter(s.Profile)
	addStacks(t, s, fw)
	var out strings.Builder
	fw.WriteTo(&out)
	q, err := folded.ParseProfile(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Threads()[0].Tree(ctx, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := session.New("folded", q, session.Options{}).Threads()[0].Tree(ctx, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
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

// addStacks adds the first thread's stacks, as the session computes them,
// to fw.
func addStacks(t *testing.T, s *session.Session, fw *folded.Writer) {
	t.Helper()
	ts, err := s.Threads()[0].Stacks(context.Background(), view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for st := range ts.Stacks {
		fw.Add(st.Frames, st.Weight)
	}
}

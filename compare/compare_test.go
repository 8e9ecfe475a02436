package compare_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/compare"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

const (
	mix       = "../testdata/node/mix.cpuprofile"
	recursion = "../testdata/node/recursion.cpuprofile"
	mixDir    = "file:///jsprof/testdata/node/"
)

// variant writes a copy of a .cpuprofile with its URL prefix moved to
// "file:///srv/app/" (and script ids shifted, as another run gives them)
// and its time deltas multiplied by k.
func variant(t *testing.T, src string, k int64) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.ReplaceAll(string(data), mixDir, "file:///srv/app/"))
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, n := range doc["nodes"].([]any) {
		cf := n.(map[string]any)["callFrame"].(map[string]any)
		if id, _ := strconv.Atoi(cf["scriptId"].(string)); id != 0 {
			cf["scriptId"] = strconv.Itoa(id + 1000)
		}
	}
	num := func(v any) int64 { x, _ := v.(json.Number).Int64(); return x }
	ds := doc["timeDeltas"].([]any)
	var sum int64
	for i, d := range ds {
		ds[i] = json.Number(strconv.FormatInt(num(d)*k, 10))
		sum += num(d)
	}
	start, end := num(doc["startTime"]), num(doc["endTime"])
	doc["endTime"] = json.Number(strconv.FormatInt(start+(end-start)*k, 10))
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(name, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func side(t *testing.T, name string) compare.Side {
	t.Helper()
	s, err := session.Load(context.Background(), name, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return compare.Side{Threads: s.Threads()}
}

func diff(t *testing.T, base, new compare.Side, opts compare.Options) *compare.Result {
	t.Helper()
	r, err := compare.Diff(context.Background(), base, new, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func byKey(r *compare.Result) map[compare.Key]*compare.Function {
	m := map[compare.Key]*compare.Function{}
	for i := range r.Functions {
		m[r.Functions[i].Key] = &r.Functions[i]
	}
	return m
}

// The same profile moved to another directory (other script ids too)
// matches function for function with no change: by the automatic prefix,
// and by --strip of both prefixes; with nothing stripped, every function
// with a file URL is added on one side and removed on the other.
func TestMovedMatches(t *testing.T) {
	t.Parallel()
	base, moved := side(t, mix), side(t, variant(t, mix, 1))
	for _, tc := range []struct {
		name  string
		strip []string
	}{{"auto", nil}, {"strip", []string{mixDir, "file:///srv/app/"}}} {
		r := diff(t, base, moved, compare.Options{Strip: tc.strip, Paths: true})
		if r.Base.Total != r.New.Total || r.Base.Total == 0 {
			t.Errorf("%s: totals %d and %d, want equal", tc.name, r.Base.Total, r.New.Total)
		}
		for _, f := range r.Functions {
			if f.Status() != compare.Same {
				t.Errorf("%s: %s %s: %v (base %v, new %v), want same", tc.name, f.Key.Name, f.Key.URL, f.Status(), f.Base, f.New)
			}
		}
		for _, p := range r.Paths {
			if p.Status() != compare.Same {
				t.Errorf("%s: path %v: %v, want same", tc.name, p.Funcs(), p.Status())
			}
		}
		if tc.strip == nil && (r.Base.Prefix != mixDir || r.New.Prefix != "file:///srv/app/") {
			t.Errorf("auto prefixes %q and %q, want %q and %q", r.Base.Prefix, r.New.Prefix, mixDir, "file:///srv/app/")
		}
		t.Logf("%s: %d functions, %d paths, all the same", tc.name, len(r.Functions), len(r.Paths))
	}
	r := diff(t, base, moved, compare.Options{Strip: []string{}})
	added, removed := 0, 0
	for _, f := range r.Functions {
		switch f.Status() {
		case compare.Added:
			added++
			if !strings.HasPrefix(f.Key.URL, "file:///srv/app/") {
				t.Errorf("%s %s added", f.Key.Name, f.Key.URL)
			}
		case compare.Removed:
			removed++
		}
	}
	if added == 0 || added != removed {
		t.Errorf("unstripped: %d added, %d removed; want the same number, > 0", added, removed)
	}
}

// A→B is the negation of B→A: the same functions and paths, base and new
// swapped, deltas negated, added and removed exchanged.
func TestSymmetry(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, a, b string }{
		{"mix-recursion", mix, recursion},
		{"mix-moved-slower", mix, variant(t, mix, 3)},
	}
	gen := func(seed uint64) string {
		name := filepath.Join(t.TempDir(), "gen.cpuprofile")
		if err := os.WriteFile(name, proftest.LargeCPUProfile(seed, 400, 5000), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	cases = append(cases, struct{ name, a, b string }{"generated", gen(1), gen(2)})
	for _, tc := range cases {
		a, b := side(t, tc.a), side(t, tc.b)
		for _, o := range []compare.Options{{Paths: true}, {View: view.Options{View: view.JS}}} {
			ab, ba := diff(t, a, b, o), diff(t, b, a, o)
			if len(ab.Functions) != len(ba.Functions) || len(ab.Paths) != len(ba.Paths) {
				t.Fatalf("%s: %d/%d functions, %d/%d paths", tc.name, len(ab.Functions), len(ba.Functions), len(ab.Paths), len(ba.Paths))
			}
			m := byKey(ba)
			changed := 0
			for _, f := range ab.Functions {
				g := m[f.Key]
				if g == nil {
					t.Fatalf("%s: %v missing from B→A", tc.name, f.Key)
				}
				if f.Delta() != (compare.Times{Self: -g.Delta().Self, Total: -g.Delta().Total}) || f.Base != g.New || f.New != g.Base {
					t.Errorf("%s: %s: A→B %v→%v, B→A %v→%v", tc.name, f.Key.Name, f.Base, f.New, g.Base, g.New)
				}
				want := map[compare.Status]compare.Status{compare.Added: compare.Removed, compare.Removed: compare.Added,
					compare.Same: compare.Same, compare.Changed: compare.Changed}[f.Status()]
				if g.Status() != want {
					t.Errorf("%s: %s: %v and %v", tc.name, f.Key.Name, f.Status(), g.Status())
				}
				if f.Status() != compare.Same {
					changed++
				}
			}
			var sab, sba profile.Time
			for _, p := range ab.Paths {
				sab += p.Delta().Self
			}
			for _, p := range ba.Paths {
				sba += p.Delta().Self
			}
			if o.Paths && (sab != -sba || sab != ab.New.Total-ab.Base.Total) {
				t.Errorf("%s: path self deltas sum to %d and %d, want ±%d", tc.name, sab, sba, ab.New.Total-ab.Base.Total)
			}
			t.Logf("%s (view %v): %d functions (%d not the same), %d paths: symmetric", tc.name, o.View.View, len(ab.Functions), changed, len(ab.Paths))
		}
	}
}

// A profile against itself three times slower: every delta is 3× the
// base time; normalized, every delta is 0 (within the rounding of the
// scaled base to a nanosecond).
func TestNormalize(t *testing.T) {
	t.Parallel()
	base, slow := side(t, mix), side(t, variant(t, mix, 3))
	r := diff(t, base, slow, compare.Options{})
	for _, f := range r.Functions {
		if f.New.Self != 3*f.Base.Self || f.New.Total != 3*f.Base.Total {
			t.Errorf("%s: base %v, new %v; want 3×", f.Key.Name, f.Base, f.New)
		}
	}
	n := diff(t, base, slow, compare.Options{Normalize: true, Paths: true})
	if math.Abs(n.Scale-3) > 1e-9 {
		t.Errorf("scale %v, want 3", n.Scale)
	}
	for _, f := range n.Functions {
		if d := f.Delta(); d.Self < -1 || d.Self > 1 || d.Total < -1 || d.Total > 1 {
			t.Errorf("normalized %s: delta %v, want 0 ± 1 ns", f.Key.Name, d)
		}
	}
	for _, p := range n.Paths {
		if d := p.Delta(); d.Self < -1 || d.Self > 1 {
			t.Errorf("normalized path %v: delta %v", p.Funcs(), d)
		}
	}
	t.Logf("%d functions, %d paths: 3× unnormalized, 0 normalized", len(r.Functions), len(n.Paths))
}

// Rows come largest absolute change of self time first.
func TestOrder(t *testing.T) {
	t.Parallel()
	r := diff(t, side(t, mix), side(t, recursion), compare.Options{Paths: true})
	abs := func(x profile.Time) profile.Time { return max(x, -x) }
	for i := 1; i < len(r.Functions); i++ {
		if abs(r.Functions[i].Delta().Self) > abs(r.Functions[i-1].Delta().Self) {
			t.Fatalf("row %d: |Δself| %d after %d", i, r.Functions[i].Delta().Self, r.Functions[i-1].Delta().Self)
		}
	}
	if r.Functions[0].Key.Name != "ackermann" || r.Functions[0].Status() != compare.Added {
		t.Errorf("first row %s %v, want ackermann added", r.Functions[0].Key.Name, r.Functions[0].Status())
	}
}

// Each path is its parent followed by its function, Funcs lists them, no
// two paths have the same functions, and the rows come in their order:
// largest change of self time, then of total time, then the heavier, then
// by functions.
func TestPathLinks(t *testing.T) {
	t.Parallel()
	r := diff(t, side(t, mix), side(t, recursion), compare.Options{Paths: true})
	if len(r.Paths) == 0 {
		t.Fatal("no paths")
	}
	abs := func(x profile.Time) profile.Time { return max(x, -x) }
	seen := map[string]int{}
	for i := range r.Paths {
		p := &r.Paths[i]
		fs := p.Funcs()
		if len(fs) != int(p.Depth) || fs[len(fs)-1] != p.Func {
			t.Fatalf("path %d: Funcs %v, want %d functions ending in %d", i, fs, p.Depth, p.Func)
		}
		if p.Depth == 1 && p.Parent != -1 || p.Depth > 1 && !slices.Equal(r.Paths[p.Parent].Funcs(), fs[:len(fs)-1]) {
			t.Errorf("path %d %v: parent %d", i, fs, p.Parent)
		}
		if got := p.AppendFuncs([]int32{-7}); got[0] != -7 || !slices.Equal(got[1:], fs) {
			t.Errorf("path %d: AppendFuncs gives %v, want -7 then %v", i, got, fs)
		}
		k := fmt.Sprint(fs)
		if j, ok := seen[k]; ok {
			t.Errorf("paths %d and %d are both %v", j, i, fs)
		}
		seen[k] = i
		if i == 0 {
			continue
		}
		q := &r.Paths[i-1]
		x, y := q.Delta(), p.Delta()
		c := cmp.Or(cmp.Compare(abs(y.Self), abs(x.Self)), cmp.Compare(abs(y.Total), abs(x.Total)),
			cmp.Compare(max(p.New.Self, p.Base.Self), max(q.New.Self, q.Base.Self)),
			cmp.Compare(max(p.New.Total, p.Base.Total), max(q.New.Total, q.Base.Total)), slices.Compare(q.Funcs(), fs))
		if c >= 0 {
			t.Errorf("path %d %v (%v, %v) after %v (%v, %v)", i, fs, p.Base, p.New, q.Funcs(), q.Base, q.New)
		}
	}
	t.Logf("%d paths", len(r.Paths))
}

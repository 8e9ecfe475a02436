package merge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/merge"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

const node = "../testdata/node/"

// slower writes a copy of a .cpuprofile with every time delta multiplied
// by k: the same run sampled k times less often.
func slower(t *testing.T, src string, k int64) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	num := func(v any) int64 { x, _ := v.(json.Number).Int64(); return x }
	ds := doc["timeDeltas"].([]any)
	for i, d := range ds {
		ds[i] = json.Number(strconv.FormatInt(num(d)*k, 10))
	}
	start, end := num(doc["startTime"]), num(doc["endTime"])
	doc["endTime"] = json.Number(strconv.FormatInt(start+(end-start)*k, 10))
	out, _ := json.Marshal(doc)
	name := filepath.Join(t.TempDir(), fmt.Sprintf("x%d-%s", k, filepath.Base(src)))
	if err := os.WriteFile(name, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

type fkey struct {
	name, url string
	line, col int32
}

type times struct{ self, total profile.Time }

// functions returns the self and total time of every function of every
// thread of a session (summed over threads), by name, URL, line, column.
func functions(t *testing.T, s *session.Session, vo view.Options) map[fkey]times {
	t.Helper()
	out := map[fkey]times{}
	p := s.Profile
	for _, th := range s.Threads() {
		fs, err := th.Functions(context.Background(), vo, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs.Funcs {
			fr := &p.Frames[f.Frame]
			k := fkey{p.Str(fr.Name), p.Str(fr.URL), fr.Line, fr.Column}
			x := out[k]
			x.self += f.Self
			x.total += f.Total
			out[k] = x
		}
	}
	return out
}

func load(t *testing.T, name string) *session.Session {
	t.Helper()
	s, err := session.Load(context.Background(), name, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every function of the merge has the sum of the inputs' self and total
// time, whatever their sampling intervals (one input sampled 3× less
// often counts 3× its samples' time), with one worker and with two; and
// the merge written as a .cpuprofile reads back with the same times.
func TestSums(t *testing.T) {
	t.Parallel()
	mix := node + "mix.cpuprofile"
	cases := []struct {
		name   string
		inputs []string
		vo     view.Options
	}{
		{"same-program-intervals", []string{mix, slower(t, mix, 3), mix}, view.Options{}},
		{"programs", []string{mix, node + "recursion.cpuprofile", node + "async.cpuprofile", node + "deep-stack.cpuprofile"}, view.Options{}},
		{"programs-view-js", []string{mix, node + "recursion.cpuprofile", node + "async.cpuprofile"}, view.Options{View: view.JS}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := map[fkey]times{}
			for _, in := range tc.inputs {
				for k, v := range functions(t, load(t, in), tc.vo) {
					x := want[k]
					x.self += v.self
					x.total += v.total
					want[k] = x
				}
			}
			var dumps []string
			for _, workers := range []int{1, 2} {
				res, err := merge.Merge(context.Background(), tc.inputs, merge.Options{Workers: workers, View: tc.vo})
				if err != nil {
					t.Fatal(err)
				}
				if err := res.Profile.Validate(); err != nil {
					t.Fatalf("merged profile: %v", err)
				}
				// The stacks, aggregated per function.
				got := map[fkey]times{}
				p := res.Profile
				for _, ts := range res.Stacks() {
					if err := ts.Paths.Check(p); err != nil {
						t.Fatal(err)
					}
					for st := range ts.Stacks {
						if fs := ts.Paths.AppendFrames(nil, st.Path); !slices.Equal(fs, st.Frames) {
							t.Fatalf("stack of path %d: frames %v, the path's %v", st.Path, st.Frames, fs)
						}
						seen := map[fkey]bool{}
						for i, f := range st.Frames {
							fr := &p.Frames[f]
							k := fkey{p.Str(fr.Name), p.Str(fr.URL), fr.Line, fr.Column}
							x := got[k]
							if i == len(st.Frames)-1 {
								x.self += st.Weight
							}
							if !seen[k] {
								seen[k] = true
								x.total += st.Weight
							}
							got[k] = x
						}
					}
				}
				compareTimes(t, fmt.Sprintf("stacks (%d workers)", workers), got, want)
				// Written as a .cpuprofile and read back.
				var buf bytes.Buffer
				if err := v8.Write(&buf, p, v8.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
				dumps = append(dumps, buf.String())
				name := filepath.Join(t.TempDir(), "merged.cpuprofile")
				if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				compareTimes(t, fmt.Sprintf("cpuprofile (%d workers)", workers), functions(t, load(t, name), view.Options{}), want)
				t.Logf("%d inputs, %d workers: %d functions with the summed self and total time; %d merged nodes",
					len(tc.inputs), workers, len(want), len(p.Nodes))
			}
			if dumps[0] != dumps[1] {
				t.Errorf("one and two workers write different profiles")
			}
		})
	}
}

func compareTimes(t *testing.T, what string, got, want map[fkey]times) {
	t.Helper()
	bad := 0
	for k, w := range want {
		if w.self == 0 && w.total == 0 {
			continue
		}
		if g := got[k]; g != w {
			bad++
			if bad <= 5 {
				t.Errorf("%s: %s %s:%d: got self %d total %d, want %d %d", what, k.name, k.url, k.line, g.self, g.total, w.self, w.total)
			}
		}
	}
	for k, g := range got {
		if w, ok := want[k]; !ok && (g.self != 0 || g.total != 0) {
			t.Errorf("%s: %s %s: %v, not in any input (%v)", what, k.name, k.url, g, w)
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d functions differ", what, bad)
	}
}

// An XS call graph does not merge with V8 call trees: the error names both
// inputs and says why. An unreadable input is named too.
func TestMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	xs := filepath.Join(dir, "xs.cpuprofile")
	const doc = `{"nodes":[{"id":1,"callFrame":{"functionName":"(host)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},` +
		`{"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"app.js","lineNumber":1,"columnNumber":0},"children":[3]},` +
		`{"id":3,"callFrame":{"functionName":"g","scriptId":"1","url":"app.js","lineNumber":5,"columnNumber":0}}],` +
		`"startTime":0,"endTime":4000,"samples":[2,3,3,2],"timeDeltas":[0,1000,1000,1000]}`
	if err := os.WriteFile(xs, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := merge.Merge(context.Background(), []string{node + "mix.cpuprofile", xs}, merge.Options{Workers: 1})
	if !errors.Is(err, merge.ErrMismatch) || !strings.Contains(err.Error(), "xs.cpuprofile") || !strings.Contains(err.Error(), "mix.cpuprofile") ||
		!strings.Contains(err.Error(), "XS call graph") {
		t.Errorf("got %v, want ErrMismatch naming both inputs", err)
	}
	// Two XS call graphs do merge.
	if _, err := merge.Merge(context.Background(), []string{xs, xs}, merge.Options{}); err != nil {
		t.Errorf("two XS call graphs: %v", err)
	}
	bad := filepath.Join(dir, "bad.cpuprofile")
	os.WriteFile(bad, []byte(`{"nodes":[`), 0o644)
	names := []string{node + "mix.cpuprofile", bad, node + "mix.cpuprofile", node + "mix.cpuprofile"}
	if _, err := merge.Merge(context.Background(), names, merge.Options{Workers: 2}); err == nil || !strings.Contains(err.Error(), "bad.cpuprofile") {
		t.Errorf("got %v, want an error naming bad.cpuprofile", err)
	}
}

// A cancelled merge stops with the context's error (no worker waits
// forever for its turn).
func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var names []string
	for range 50 {
		names = append(names, node+"mix.cpuprofile")
	}
	n := 0
	_, err := merge.Merge(ctx, names, merge.Options{Workers: 2, Progress: func(done, total int) {
		if n++; n == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

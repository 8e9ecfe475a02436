package calltree_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/profile"
)

func build(t testing.TB, doc string) *calltree.Tree {
	t.Helper()
	p, err := v8.ParseBytes([]byte(doc), v8.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return calltree.Build(tl)
}

func fn(name string, id int, line int, children ...int) string {
	var kids []string
	for _, c := range children {
		kids = append(kids, fmt.Sprint(c))
	}
	return fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":%q,"scriptId":"1","url":"u.js","lineNumber":%d,"columnNumber":0},"children":[%s]}`,
		id, name, line, strings.Join(kids, ","))
}

// recursion: root → main → fib → fib → fib. Samples (100 µs apart): fib3,
// fib3, main, fib1; the last sample lasts one average interval (100 µs).
const recursion = `{"nodes":[` +
	`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},` +
	`{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"u.js","lineNumber":0,"columnNumber":0},"children":[3]},` +
	`{"id":3,"callFrame":{"functionName":"fib","scriptId":"1","url":"u.js","lineNumber":5,"columnNumber":0},"children":[4],
	  "positionTicks":[{"line":7,"ticks":3},{"line":8,"ticks":1}]},` +
	`{"id":4,"callFrame":{"functionName":"fib","scriptId":"1","url":"u.js","lineNumber":5,"columnNumber":0},"children":[5]},` +
	`{"id":5,"callFrame":{"functionName":"fib","scriptId":"1","url":"u.js","lineNumber":5,"columnNumber":0}}],` +
	`"startTime":0,"endTime":1000,"samples":[5,5,2,3],"timeDeltas":[100,100,100,100]}`

const us = profile.Time(1000)

func TestRecursionCountedOnce(t *testing.T) {
	tr := build(t, recursion)
	got := map[string][2]profile.Time{}
	for _, f := range tr.Funcs {
		got[tr.Profile.Str(f.Key.Name)] = [2]profile.Time{f.Self, f.Total}
	}
	want := map[string][2]profile.Time{
		"main": {100 * us, 400 * us},
		"fib":  {300 * us, 300 * us}, // not 200+200+200+100: inner recursive calls are not added
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s self/total = %v, want %v", name, got[name], w)
		}
	}
	if tr.TopDown[0].Total != 400*us {
		t.Errorf("sampled = %d, want 400 µs", tr.TopDown[0].Total)
	}
	if tr.Calls != 5 {
		t.Errorf("%d calls, want 5", tr.Calls)
	}
	// Top-down: main → fib (300: two calls) → fib (200) → fib (200, self 200).
	var chain []string
	for n := int32(0); ; {
		kids := calltree.Children(tr.TopDown, n, calltree.ByTotal)
		if len(kids) == 0 {
			break
		}
		n = kids[0]
		nd := tr.TopDown[n]
		chain = append(chain, fmt.Sprintf("%s %d/%d x%d", tr.Profile.Str(tr.Funcs[nd.Func].Key.Name), nd.Total/us, nd.Self/us, nd.Calls))
	}
	if got, want := strings.Join(chain, "; "), "main 400/100 x1; fib 300/100 x2; fib 200/0 x1; fib 200/200 x1"; got != want {
		t.Errorf("top-down chain\n got %s\nwant %s", got, want)
	}
}

func TestBottomUp(t *testing.T) {
	tr := build(t, recursion)
	bu := tr.BottomUp(0)
	name := func(n int32) string { return tr.Profile.Str(tr.Funcs[bu[n].Func].Key.Name) }
	top := calltree.Children(bu, 0, calltree.BySelf)
	var rows []string
	for _, n := range top {
		rows = append(rows, fmt.Sprintf("%s self %d total %d", name(n), bu[n].Self/us, bu[n].Total/us))
		for _, c := range calltree.Children(bu, n, calltree.BySelf) {
			rows = append(rows, fmt.Sprintf("  ← %s self %d", name(c), bu[c].Self/us))
		}
	}
	// Sorted by self time. fib's 300 µs of self time reached it from main
	// (100, the second fib call) and from fib itself (200, the innermost).
	want := "fib self 300 total 300\n  ← fib self 200\n  ← main self 100\nmain self 100 total 400"
	if got := strings.Join(rows, "\n"); got != want {
		t.Errorf("bottom-up\n got:\n%s\nwant:\n%s", got, want)
	}
	if bu[0].Total != 400*us {
		t.Errorf("bottom-up root = %d, want the sum of self times (400 µs)", bu[0].Total)
	}
}

func TestTopOrder(t *testing.T) {
	tr := build(t, recursion)
	name := func(id calltree.FuncID) string { return tr.Profile.Str(tr.Funcs[id].Key.Name) }
	if ids := tr.Top(calltree.BySelf, 0); name(ids[0]) != "fib" || len(ids) != 2 {
		t.Errorf("by self: %v", ids)
	}
	if ids := tr.Top(calltree.ByTotal, 1); name(ids[0]) != "main" || len(ids) != 1 {
		t.Errorf("by total: %v", ids)
	}
}

// Per-line self time splits a node's self time over its positionTicks lines.
func TestLines(t *testing.T) {
	tr := build(t, recursion)
	ls := tr.Lines()
	if len(ls) != 2 {
		t.Fatalf("%d lines, want 2", len(ls))
	}
	// Node 3 (the outer fib) has self 100 µs: 3/4 on line 7, 1/4 on line 8.
	if ls[0].Line != 7 || ls[0].Self != 75*us || ls[1].Line != 8 || ls[1].Self != 25*us {
		t.Errorf("lines = %+v", ls)
	}
}

// Sibling calls of the same function at the same level merge into one
// top-down node; functions that differ only in line stay apart.
func TestMergeByFunction(t *testing.T) {
	doc := `{"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},` +
		fn("f", 2, 1) + "," + fn("f", 3, 9) + `],` +
		`"startTime":0,"endTime":1000,"samples":[2,3,2],"timeDeltas":[100,100,100]}`
	tr := build(t, doc)
	if len(tr.Funcs) != 2 {
		t.Errorf("%d functions, want 2 (same name, different lines)", len(tr.Funcs))
	}
	if kids := calltree.Children(tr.TopDown, 0, calltree.ByTotal); len(kids) != 2 || tr.TopDown[kids[0]].Calls != 2 {
		t.Errorf("top-level nodes %v", kids)
	}
}

// Lines derives a tree's path costs on first use (a tree made from the
// samples keeps none until then): callers at once get the same lines, and
// the race detector sees no race (scripts/test.sh runs this with -race).
func TestLinesConcurrent(t *testing.T) {
	const doc = `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":""},"children":[2,4]},
		{"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"u"},"children":[3],"positionTicks":[{"line":3,"ticks":2},{"line":4,"ticks":1}]},
		{"id":3,"callFrame":{"functionName":"b","scriptId":"1","url":"u","lineNumber":9},"positionTicks":[{"line":11,"ticks":3}]},
		{"id":4,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":""}}],
	 "startTime":0,"endTime":1000,"samples":[2,3,3,4,2,3,4],"timeDeltas":[10,100,100,100,100,100,100]}`
	want := fmt.Sprint(build(t, doc).Lines())
	if !strings.Contains(want, "11") {
		t.Fatalf("no line 11 among %s", want)
	}
	tr := build(t, doc)
	got := make([]string, 8)
	done := make(chan int)
	for i := range got {
		go func() {
			got[i] = fmt.Sprint(tr.Lines())
			done <- i
		}()
	}
	for range got {
		<-done
	}
	for i, g := range got {
		if g != want {
			t.Errorf("caller %d: lines %s, want %s", i, g, want)
		}
	}
}

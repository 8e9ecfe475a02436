package view_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/session"
)

func node(id int, name string, children ...int) string {
	var k []string
	for _, c := range children {
		k = append(k, fmt.Sprint(c))
	}
	script, url := "1", "u.js"
	if strings.HasPrefix(name, "(") || name == "native" {
		script, url = "0", ""
	}
	return fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":%q,"scriptId":%q,"url":%q,"lineNumber":%d,"columnNumber":0},"children":[%s]}`,
		id, name, script, url, len(name)*10, strings.Join(k, ","))
}

// root → main → a → b, main → f → f; each sample lasts 100 µs.
var doc = `{"nodes":[` + strings.Join([]string{node(1, "(root)", 2), node(2, "main", 3, 5), node(3, "a", 4), node(4, "b"),
	node(5, "f", 6), node(6, "f", 7), node(7, "native")}, ",") +
	`],"startTime":0,"endTime":1000,"samples":[4,4,3,2,6,7],"timeDeltas":[100,100,100,100,100,100]}`

// stacks renders a thread's stacks under o (as the session computes them
// through view.Tree), frameless ones left out, weights in µs.
func stacks(t *testing.T, src string, o view.Options) string {
	t.Helper()
	p, err := format.Parse([]byte(src), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := session.New("doc", p, session.Options{})
	ts, err := s.Threads()[0].Stacks(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for st := range ts.Stacks {
		if len(st.Frames) == 0 {
			continue
		}
		var names []string
		for _, f := range st.Frames {
			names = append(names, s.Profile.Str(s.Profile.Frames[f].Name))
		}
		out = append(out, fmt.Sprintf("%s=%d", strings.Join(names, ">"), st.Weight/1000))
	}
	return strings.Join(out, " ")
}

func m(t *testing.T, s string) []view.Matcher {
	mm, err := view.ParseMatcher(s)
	if err != nil {
		t.Fatal(err)
	}
	return []view.Matcher{mm}
}

func TestTransforms(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    view.Options
		want string
	}{
		{"none", view.Options{}, "main>a>b=200 main>a=100 main=100 main>f>f=100 main>f>f>native=100"},
		{"focus", view.Options{Focus: m(t, "a")}, "a>b=200 a=100"},
		{"focus by location", view.Options{Focus: m(t, "f@u.js:11")}, "f>f=100 f>f>native=100"},
		{"focus elsewhere", view.Options{Focus: m(t, "f@u.js:12")}, ""},
		{"drop", view.Options{Drop: m(t, "b")}, "main>a=100 main=100 main>f>f=100 main>f>f>native=100"},
		{"merge", view.Options{Merge: m(t, "a")}, "main>b=200 main=200 main>f>f=100 main>f>f>native=100"},
		{"collapse recursion", view.Options{CollapseRecursion: true}, "main>a>b=200 main>a=100 main=100 main>f=100 main>f>native=100"},
		{"range", view.Options{From: 150_000, To: 350_000}, "main>a>b=50 main>a=100 main=50"},
		{"platform view", view.Options{View: view.Platform}, "native=100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stacks(t, doc, tc.o); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// In a trace, the trees leave RunTask out (as DevTools' do), the JS view
// keeps the events that explain how JS was entered (TimerFire), and the
// platform view keeps the events and drops JS functions.
func TestViewsOnTrace(t *testing.T) {
	trace := `[
{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":1,"ts":0,"args":{"data":{}}},
{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":0,"args":{"data":{"cpuProfile":{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},
 {"id":2,"parent":1,"callFrame":{"functionName":"onTimer","scriptId":3,"url":"a.js"}}],
 "samples":[2,2]},"timeDeltas":[10,10]}}},
{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":5,"dur":100,"cat":"t"},
{"name":"TimerFire","ph":"X","pid":1,"tid":1,"ts":6,"dur":50,"cat":"t"}
]`
	render := func(v view.View) string { return stacks(t, trace, view.Options{View: v}) }
	for v, want := range map[view.View]string{
		// onTimer's samples (at 10 and 20 µs) make a call that DevTools ends
		// with the TimerFire that invoked it (56 µs).
		view.All: "TimerFire=4 TimerFire>onTimer=46",
		view.JS:  "TimerFire=4 TimerFire>onTimer=46",
		// The same path, in two categories (the event's, then the JS
		// function's that the view hides).
		view.Platform: "TimerFire=4 TimerFire=46",
	} {
		if got := render(v); got != want {
			t.Errorf("%v view: got %q, want %q", v, got, want)
		}
	}
}

package profile_test

import (
	"strings"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

const testProfileDump = `format test
frame 0 "(root)" url="" script="0" -1:-1 kind=root cat=1
frame 1 "(program)" url="" script="0" -1:-1 kind=program cat=1
frame 2 "(garbage collector)" url="" script="0" -1:-1 kind=gc cat=6
frame 3 "main" url="file:///a.js" script="3" 0:0 kind=js cat=2 code=JS
frame 4 "hot" url="file:///a.js" script="3" 9:4 kind=js cat=2
frame 5 "Math.max" url="" script="0" -1:-1 kind=native cat=2
thread 0 pid=1 tid=1 name="main" profile="0x1" shape=tree nodes=[0,5) samples=[0,5) start=90 end=600 hitcounts=true events=[0,3) process="Renderer" lastend=550
thread 1 pid=1 tid=2 name="worker" profile="" shape=tree nodes=[5,8) samples=[5,8) start=40 end=300 hitcounts=false events=[3,4) process=""
node 0 id=1 parent=-1 frame=0 hits=0
node 1 id=2 parent=0 frame=3 hits=1
node 2 id=3 parent=1 frame=4 hits=2 deopt="too many"
node 3 id=4 parent=0 frame=1 hits=1
node 4 id=5 parent=0 frame=2 hits=1
node 5 id=1 parent=-1 frame=0 hits=0
node 6 id=2 parent=5 frame=3 hits=1
node 7 id=3 parent=6 frame=5 hits=2
edge 1->2
ticks node=2 line=10 ticks=1
ticks node=2 line=11 ticks=1
traceid thread=0 id=7 node=2
sample 0 node=1 t=100 line=1 col=1
sample 1 node=2 t=200 line=10 col=5
sample 2 node=2 t=200 line=11 col=5
sample 3 node=3 t=400 line=0 col=0
sample 4 node=4 t=500 line=0 col=0
sample 5 node=6 t=50 line=1 col=1
sample 6 node=7 t=150 line=0 col=0
sample 7 node=7 t=250 line=0 col=0
event 0 thread=0 X "RunTask" cat="toplevel" start=90 dur=400
event 1 thread=0 X "FunctionCall" cat="devtools" start=100 dur=100 traceid=7
event 2 thread=0 I "Mark" cat="devtools" start=250 dur=0
event 3 thread=1 X "RunTask" cat="toplevel" start=40 dur=300
diag negative-delta 2 "2 samples out of order"
`

// String prints every table, one record a line, in table order.
func TestString(t *testing.T) {
	t.Parallel()
	if got := testProfile().String(); got != testProfileDump {
		t.Errorf("got\n%s\nwant\n%s", got, testProfileDump)
	}
}

// The dump is a function of the profile alone: the same profile built
// twice, or printed twice, gives the same text (nothing comes from map
// order, addresses or the clock).
func TestStringDeterministic(t *testing.T) {
	t.Parallel()
	first := testProfile().String()
	for range 20 {
		p := testProfile()
		if got := p.String(); got != first {
			t.Fatalf("second build: got\n%s\nwant\n%s", got, first)
		}
		if got := p.String(); got != first {
			t.Fatalf("second print: got\n%s\nwant\n%s", got, first)
		}
	}
}

// Optional parts are left out when absent; names are quoted, so that a
// newline or a quote in a name cannot break the one-record-a-line form.
func TestStringOptionalAndQuoted(t *testing.T) {
	t.Parallel()
	b := profile.NewBuilder("chrome-trace")
	p := b.P
	p.Generic = true
	f := b.Frame(profile.Frame{Name: b.Intern("a\nb \"c\""), URL: b.Intern("x y.js"), ScriptID: b.Intern("1"), Line: 2, Column: 3})
	p.Nodes = []profile.Node{{Parent: profile.NoNode, Frame: f, InputID: 9}}
	p.Samples = profile.Samples{Node: profile.NodesOf(0), Time: profile.MakeTimes(-5)}
	p.Threads = []profile.Thread{{PID: -1, TID: 0, Name: "t\tab", Nodes: profile.Range{Start: 0, End: 1}, Samples: profile.Range{Start: 0, End: 1}, Shape: profile.ShapeCallGraph}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	want := `format chrome-trace
generic
frame 0 "a\nb \"c\"" url="x y.js" script="1" 2:3 kind=js cat=2
thread 0 pid=-1 tid=0 name="t\tab" profile="" shape=callgraph nodes=[0,1) samples=[0,1) start=0 end=0 hitcounts=false
node 0 id=9 parent=-1 frame=0 hits=0
sample 0 node=0 t=-5
`
	got := p.String()
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if n := strings.Count(got, "\n"); n != 6 {
		t.Errorf("got %d lines, want 6", n)
	}
}

package profile_test

import "github.com/jsprof/jsprof/profile"

// Node ids of testProfile.
const (
	nRoot0, nMain0, nHot0, nProgram0, nGC0 profile.NodeID = 0, 1, 2, 3, 4
	nRoot1, nMain1, nNative1               profile.NodeID = 5, 6, 7
)

// testProfile builds a valid profile that fills every table: two threads
// (the second's samples start before the first's end, which is allowed:
// samples are sorted within a thread), all optional sample columns, events
// with their args, an edge, line ticks, a trace id and a diagnostic.
func testProfile() *profile.Profile {
	b := profile.NewBuilder("test")
	s := b.Intern
	meta := func(name string) profile.FrameID {
		return b.Frame(profile.Frame{Name: s(name), ScriptID: s("0"), Line: -1, Column: -1})
	}
	root, program, gc := meta("(root)"), meta("(program)"), meta("(garbage collector)")
	mainF := b.Frame(profile.Frame{Name: s("main"), URL: s("file:///a.js"), ScriptID: s("3"), Line: 0, Column: 0, CodeType: s("JS")})
	hot := b.Frame(profile.Frame{Name: s("hot"), URL: s("file:///a.js"), ScriptID: s("3"), Line: 9, Column: 4})
	native := meta("Math.max")
	p := b.P
	p.Nodes = []profile.Node{
		{Parent: profile.NoNode, Frame: root, InputID: 1},
		{Parent: nRoot0, Frame: mainF, InputID: 2, HitCount: 1},
		{Parent: nMain0, Frame: hot, InputID: 3, HitCount: 2, DeoptReason: s("too many")},
		{Parent: nRoot0, Frame: program, InputID: 4, HitCount: 1},
		{Parent: nRoot0, Frame: gc, InputID: 5, HitCount: 1},
		{Parent: profile.NoNode, Frame: root, InputID: 1},
		{Parent: nRoot1, Frame: mainF, InputID: 2, HitCount: 1},
		{Parent: nMain1, Frame: native, InputID: 3, HitCount: 2},
	}
	p.Samples = profile.Samples{
		Node:        profile.NodesOf(nMain0, nHot0, nHot0, nProgram0, nGC0, nMain1, nNative1, nNative1),
		Time:        profile.MakeTimes(100, 200, 200, 400, 500, 50, 150, 250),
		Line:        []int32{1, 10, 11, 0, 0, 1, 0, 0},
		Column:      []int32{1, 5, 5, 0, 0, 1, 0, 0},
		Category:    []profile.CategoryID{profile.CatJavaScript, profile.CatJavaScript, profile.CatJavaScript, profile.CatOther, profile.CatGC, profile.CatJavaScript, profile.CatJavaScript, profile.CatJavaScript},
		Subcategory: []uint8{0, 3, 3, 1, 2, 0, 4, 4},
	}
	p.Events = []profile.Event{
		{Thread: 0, Name: s("RunTask"), Cat: s("toplevel"), Phase: 'X', Start: 90, Dur: 400},
		{Thread: 0, Name: s("FunctionCall"), Cat: s("devtools"), Phase: 'X', Start: 100, Dur: 100, SampleTraceID: 7},
		{Thread: 0, Name: s("Mark"), Cat: s("devtools"), Phase: 'I', Start: 250},
		{Thread: 1, Name: s("RunTask"), Cat: s("toplevel"), Phase: 'X', Start: 40, Dur: 300},
	}
	p.EventArgs = [][]byte{nil, []byte(`{"data":{}}`), nil, nil}
	p.Edges = []profile.Edge{{From: nMain0, To: nHot0}}
	p.LineTicks = []profile.LineTick{{Node: nHot0, Line: 10, Ticks: 1}, {Node: nHot0, Line: 11, Ticks: 1}}
	p.TraceIDs = []profile.TraceID{{Thread: 0, ID: 7, Node: nHot0}}
	p.Threads = []profile.Thread{
		{PID: 1, TID: 1, Name: "main", ProfileID: "0x1", Nodes: profile.Range{Start: 0, End: 5}, Samples: profile.Range{Start: 0, End: 5},
			Events: profile.Range{Start: 0, End: 3}, ProcessName: "Renderer", Start: 90, End: 600, LastSampleEnd: 550, HitCounts: true},
		{PID: 1, TID: 2, Name: "worker", Nodes: profile.Range{Start: 5, End: 8}, Samples: profile.Range{Start: 5, End: 8},
			Events: profile.Range{Start: 3, End: 4}, Start: 40, End: 300, Shape: profile.ShapeTree},
	}
	p.Diagnostics.Add("negative-delta", 2, "%d samples out of order", 2)
	return p
}

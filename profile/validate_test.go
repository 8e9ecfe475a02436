package profile_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(p *profile.Profile)
	}{
		{"full", func(p *profile.Profile) {}},
		{"empty", func(p *profile.Profile) { *p = *profile.NewBuilder("x").P }},
		{"no optional columns", func(p *profile.Profile) {
			p.Samples.Line, p.Samples.Column, p.Samples.Category, p.Samples.Subcategory = nil, nil, nil, nil
		}},
		{"category without subcategory", func(p *profile.Profile) { p.Samples.Subcategory = nil }},
		{"no event args", func(p *profile.Profile) { p.EventArgs = nil }},
		{"thread without samples or events", func(p *profile.Profile) {
			p.Samples = sliceSamples(p.Samples, 0, 5)
			p.Threads[1].Samples = profile.Range{Start: 5, End: 5}
			p.Events, p.EventArgs = p.Events[:3], p.EventArgs[:3]
			p.Threads[1].Events = profile.Range{Start: 3, End: 3}
		}},
		{"equal sample times", func(p *profile.Profile) { p.Samples.Time.Set(1, p.Samples.Time.At(0)) }},
		{"events with equal starts", func(p *profile.Profile) { p.Events[1].Start = p.Events[0].Start }},
		{"zero-length event", func(p *profile.Profile) { p.Events[1].Dur = 0 }},
		{"event frame kind", func(p *profile.Profile) { p.Frames[0].Kind = profile.KindEvent }},
		{"last category", func(p *profile.Profile) { p.Frames[0].Category = profile.CategoryID(len(p.Categories) - 1) }},
		{"last subcategory", func(p *profile.Profile) {
			p.Samples.Subcategory[0] = uint8(len(p.Categories[p.Samples.Category[0]].Subcategories) - 1)
		}},
		{"edge within the second thread", func(p *profile.Profile) { p.Edges = append(p.Edges, profile.Edge{From: nNative1, To: nMain1}) }},
		{"call graph shape", func(p *profile.Profile) { p.Threads[0].Shape = profile.ShapeCallGraph }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := testProfile()
			tt.change(p)
			if err := p.Validate(); err != nil {
				t.Errorf("got %v, want a valid profile", err)
			}
		})
	}
}

// sliceSamples returns rows [i, j) of every column of s that is set.
func sliceSamples(s profile.Samples, i, j int) profile.Samples {
	out := profile.Samples{Node: s.Node.Slice(i, j), Time: s.Time.Slice(i, j)}
	if s.Line != nil {
		out.Line = s.Line[i:j]
	}
	if s.Column != nil {
		out.Column = s.Column[i:j]
	}
	if s.Category != nil {
		out.Category = s.Category[i:j]
	}
	if s.Subcategory != nil {
		out.Subcategory = s.Subcategory[i:j]
	}
	return out
}

// Each invariant of Validate, broken one at a time in the valid test
// profile: the error must name what is wrong and where.
func TestValidateRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(p *profile.Profile)
		want   string // the whole message
	}{
		// Strings.
		{"no strings", func(p *profile.Profile) { p.Strings = nil }, "profile: Strings[0] must be the empty string"},
		{"first string not empty", func(p *profile.Profile) { p.Strings[0] = "x" }, "profile: Strings[0] must be the empty string"},

		// Frames.
		{"frame name beyond strings", func(p *profile.Profile) { p.Frames[3].Name = profile.StringID(len(p.Strings)) },
			"profile: frame 3: string id %d out of range"},
		{"frame url negative", func(p *profile.Profile) { p.Frames[3].URL = -1 }, "profile: frame 3: string id -1 out of range"},
		{"frame script id beyond strings", func(p *profile.Profile) { p.Frames[1].ScriptID = 1 << 20 }, "profile: frame 1: string id 1048576 out of range"},
		{"frame code type beyond strings", func(p *profile.Profile) { p.Frames[4].CodeType = profile.StringID(len(p.Strings)) },
			"profile: frame 4: string id %d out of range"},
		{"frame kind", func(p *profile.Profile) { p.Frames[2].Kind = profile.KindEvent + 1 }, "profile: frame 2: invalid kind 7"},
		{"frame category", func(p *profile.Profile) { p.Frames[2].Category = profile.CategoryID(len(p.Categories)) }, "profile: frame 2: category 9 out of range"},

		// Sample columns.
		{"time column short", func(p *profile.Profile) { p.Samples.Time = p.Samples.Time.Slice(0, 7) }, "profile: sample columns differ in length"},
		{"line column long", func(p *profile.Profile) { p.Samples.Line = append(p.Samples.Line, 0) }, "profile: sample columns differ in length"},
		{"column column short", func(p *profile.Profile) { p.Samples.Column = p.Samples.Column[:1] }, "profile: sample columns differ in length"},
		{"category column empty", func(p *profile.Profile) { p.Samples.Category = []profile.CategoryID{} }, "profile: sample columns differ in length"},
		{"subcategory column short", func(p *profile.Profile) { p.Samples.Subcategory = p.Samples.Subcategory[:7] }, "profile: sample columns differ in length"},

		// Thread node ranges.
		{"first thread not at node 0", func(p *profile.Profile) { p.Threads[0].Nodes.Start = 1 }, "profile: thread 0: node range [1,5) not contiguous after 0"},
		{"gap between node ranges", func(p *profile.Profile) {
			p.Threads[0].Nodes.End = 4
			p.Samples.Node.Set(4, nProgram0) // keep the samples inside
		}, "profile: thread 1: node range [5,8) not contiguous after 4"},
		{"empty node range", func(p *profile.Profile) {
			p.Threads[0].Nodes.End = 0
			p.Threads[1].Nodes.Start = 0
		}, "profile: thread 0: node range [0,0) not contiguous after 0"},
		{"node range beyond the table", func(p *profile.Profile) { p.Threads[1].Nodes.End = 9 }, "profile: thread 1: range beyond table"},
		{"nodes outside every thread", func(p *profile.Profile) {
			p.Threads[1].Nodes.End = 7
			p.Samples.Node.Set(6, nMain1) // keep the samples inside
			p.Samples.Node.Set(7, nMain1)
		}, "profile: nodes or samples outside every thread"},
		{"no threads", func(p *profile.Profile) {
			p.Threads = nil
			p.Events, p.EventArgs = nil, nil
		}, "profile: nodes or samples outside every thread"},

		// Thread sample ranges.
		{"gap between sample ranges", func(p *profile.Profile) { p.Threads[1].Samples.Start = 6 }, "profile: thread 1: sample range [6,8) not contiguous after 5"},
		{"sample range backwards", func(p *profile.Profile) {
			p.Threads[0].Samples.End = 0
			p.Threads[0].Samples.Start = 0
			p.Threads[1].Samples = profile.Range{Start: 0, End: -1}
		}, "profile: thread 1: sample range [0,-1) not contiguous after 0"},
		{"sample range beyond the table", func(p *profile.Profile) { p.Threads[1].Samples.End = 9 }, "profile: thread 1: range beyond table"},
		{"samples outside every thread", func(p *profile.Profile) { p.Threads[1].Samples.End = 7 }, "profile: nodes or samples outside every thread"},

		// Nodes.
		{"node frame beyond frames", func(p *profile.Profile) { p.Nodes[2].Frame = profile.FrameID(len(p.Frames)) }, "profile: node 2: frame 6 out of range"},
		{"node frame negative", func(p *profile.Profile) { p.Nodes[6].Frame = -1 }, "profile: node 6: frame -1 out of range"},
		{"deopt reason beyond strings", func(p *profile.Profile) { p.Nodes[2].DeoptReason = profile.StringID(len(p.Strings)) },
			"profile: node 2: deopt reason string out of range"},
		{"deopt reason negative", func(p *profile.Profile) { p.Nodes[7].DeoptReason = -2 }, "profile: node 7: deopt reason string out of range"},
		{"root with a parent", func(p *profile.Profile) { p.Nodes[nRoot1].Parent = nMain0 }, "profile: node 5: thread root has a parent"},
		{"second root in a thread", func(p *profile.Profile) { p.Nodes[nProgram0].Parent = profile.NoNode }, "profile: node 3: parent -1 not before it in its thread"},
		{"parent after the node", func(p *profile.Profile) { p.Nodes[nMain0].Parent = nHot0 }, "profile: node 1: parent 2 not before it in its thread"},
		{"node its own parent", func(p *profile.Profile) { p.Nodes[nHot0].Parent = nHot0 }, "profile: node 2: parent 2 not before it in its thread"},
		{"parent in another thread", func(p *profile.Profile) { p.Nodes[nMain1].Parent = nRoot0 }, "profile: node 6: parent 0 not before it in its thread"},

		// Samples.
		{"sample in another thread", func(p *profile.Profile) { p.Samples.Node.Set(1, nMain1) }, "profile: sample 1: node 6 outside thread 0"},
		{"sample before its thread", func(p *profile.Profile) { p.Samples.Node.Set(6, nGC0) }, "profile: sample 6: node 4 outside thread 1"},
		{"sample node negative", func(p *profile.Profile) { p.Samples.Node.Set(0, profile.NoNode) }, "profile: sample 0: node -1 outside thread 0"},
		{"time backwards", func(p *profile.Profile) { p.Samples.Time.Set(3, 199) }, "profile: sample 3: time goes backwards"},
		{"time backwards in the second thread", func(p *profile.Profile) { p.Samples.Time.Set(7, 149) }, "profile: sample 7: time goes backwards"},

		// Events.
		{"first events not at 0", func(p *profile.Profile) { p.Threads[0].Events.Start = 1 }, "profile: thread 0: event range [1,3) not contiguous after 0"},
		{"gap between event ranges", func(p *profile.Profile) { p.Threads[0].Events.End = 2 }, "profile: thread 1: event range [3,4) not contiguous after 2"},
		{"event range backwards", func(p *profile.Profile) { p.Threads[1].Events.End = 2 }, "profile: thread 1: event range [3,2) not contiguous after 3"},
		{"event range beyond the table", func(p *profile.Profile) { p.Threads[1].Events.End = 5 }, "profile: thread 1: event range [3,5) not contiguous after 3"},
		{"events outside every thread", func(p *profile.Profile) { p.Threads[1].Events.End = 3 }, "profile: events outside every thread"},
		{"event of another thread", func(p *profile.Profile) { p.Events[1].Thread = 1 }, "profile: event 1: invalid (thread 1, phase 'X', dur 100)"},
		{"event name beyond strings", func(p *profile.Profile) { p.Events[0].Name = profile.StringID(len(p.Strings)) }, "profile: event 0: invalid (thread 0, phase 'X', dur 400)"},
		{"event name negative", func(p *profile.Profile) { p.Events[3].Name = -1 }, "profile: event 3: invalid (thread 1, phase 'X', dur 300)"},
		{"event cat beyond strings", func(p *profile.Profile) { p.Events[2].Cat = profile.StringID(len(p.Strings)) }, "profile: event 2: invalid (thread 0, phase 'I', dur 0)"},
		{"event cat negative", func(p *profile.Profile) { p.Events[2].Cat = -1 }, "profile: event 2: invalid (thread 0, phase 'I', dur 0)"},
		{"event phase B", func(p *profile.Profile) { p.Events[1].Phase = 'B' }, "profile: event 1: invalid (thread 0, phase 'B', dur 100)"},
		{"event phase zero", func(p *profile.Profile) { p.Events[1].Phase = 0 }, `profile: event 1: invalid (thread 0, phase '\x00', dur 100)`},
		{"event duration negative", func(p *profile.Profile) { p.Events[0].Dur = -1 }, "profile: event 0: invalid (thread 0, phase 'X', dur -1)"},
		{"events not sorted", func(p *profile.Profile) { p.Events[2].Start = 99 }, "profile: event 2: not sorted by start"},
		{"event args short", func(p *profile.Profile) { p.EventArgs = p.EventArgs[:3] }, "profile: EventArgs and Events differ in length"},
		{"event args empty", func(p *profile.Profile) { p.EventArgs = [][]byte{} }, "profile: EventArgs and Events differ in length"},

		// Edges.
		{"edge across threads", func(p *profile.Profile) { p.Edges[0].To = nMain1 }, "profile: edge 0: nodes 1→6 not in one thread"},
		{"edge from no node", func(p *profile.Profile) { p.Edges[0].From = profile.NoNode }, "profile: edge 0: nodes -1→2 not in one thread"},
		{"edge to no node", func(p *profile.Profile) { p.Edges[0].To = 8 }, "profile: edge 0: nodes 1→8 not in one thread"},

		// Sample categories.
		{"sample category", func(p *profile.Profile) { p.Samples.Category[4] = profile.CategoryID(len(p.Categories)) }, "profile: sample 4: category 9 out of range"},
		{"sample subcategory", func(p *profile.Profile) { p.Samples.Subcategory[4] = 4 }, "profile: sample 4: category 6 out of range"},
		{"sample subcategory of category", func(p *profile.Profile) {
			// "Other" has 3 subcategories, JavaScript 8: 3 fits only the latter.
			p.Samples.Category[3], p.Samples.Subcategory[3] = profile.CatOther, 3
		}, "profile: sample 3: category 1 out of range"},

		// Trace ids.
		{"trace id node in another thread", func(p *profile.Profile) { p.TraceIDs[0].Node = nNative1 }, "profile: trace id 0: node 7 not in thread 0"},
		{"trace id thread beyond threads", func(p *profile.Profile) { p.TraceIDs[0].Thread = 2 }, "profile: trace id 0: node 2 not in thread 2"},
		{"trace id thread negative", func(p *profile.Profile) { p.TraceIDs[0].Thread = -1 }, "profile: trace id 0: node 2 not in thread -1"},
		{"trace id no node", func(p *profile.Profile) { p.TraceIDs[0].Node = profile.NoNode }, "profile: trace id 0: node -1 not in thread 0"},

		// Line ticks.
		{"line tick beyond nodes", func(p *profile.Profile) { p.LineTicks[1].Node = 8 }, "profile: line tick 1: node out of range"},
		{"line tick negative", func(p *profile.Profile) { p.LineTicks[0].Node = -1 }, "profile: line tick 0: node out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := testProfile()
			tt.change(p)
			want := tt.want
			if strings.Contains(want, "%d") {
				want = strings.Replace(want, "%d", strconv.Itoa(len(p.Strings)), 1)
			}
			err := p.Validate()
			if err == nil {
				t.Fatalf("got no error, want %q", want)
			}
			if err.Error() != want {
				t.Errorf("got %q, want %q", err, want)
			}
		})
	}
}

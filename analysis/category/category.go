// Package category assigns jsprof's categories (profile.DefaultCategories:
// Idle, Other, JavaScript, Layout, Graphics, DOM, GC / CC, Network, HTML
// Parsing) to samples and frames, from one rules table:
//
//  1. A sample inside a trace event that has a rule (Layout, UpdateLayoutTree,
//     Paint, ParseHTML, MajorGC, ResourceReceiveResponse, …; see EventRules)
//     takes the category of the innermost such event. Events without a rule
//     (RunTask, FunctionCall, EventDispatch, TimerFire, …) are containers:
//     they do not decide, the sample's frame does.
//  2. Otherwise the sample's leaf frame decides: (idle) Idle, (program) Other
//     / Program, (root) Other, (garbage collector) GC / CC, native frames
//     (builtins and API callbacks: script id 0, no URL) JavaScript / Native,
//     wasm code (codeType "wasm") JavaScript / Wasm, other JS frames
//     JavaScript (V8 profiles do not record the tier, so the subcategory is
//     Other unless the input says more).
//
// ProfileCalls take their frame's category (rule 2): a call is a JS
// function instance.
package category

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
)

// Rule is the category of a trace event.
type Rule struct {
	Event       string
	Category    profile.CategoryID
	Subcategory string
}

// EventRules is the rules table for trace events, sorted by event name.
var EventRules = sortRules([]Rule{
	{"Layout", profile.CatLayout, "Layout"},
	{"UpdateLayoutTree", profile.CatLayout, "Style"},
	{"RecalculateStyles", profile.CatLayout, "Style"},
	{"ScheduleStyleRecalculation", profile.CatLayout, "Style"},
	{"InvalidateLayout", profile.CatLayout, "Layout"},
	{"Paint", profile.CatGraphics, "Paint"},
	{"PaintSetup", profile.CatGraphics, "Paint"},
	{"PaintImage", profile.CatGraphics, "Paint"},
	{"PrePaint", profile.CatGraphics, "Paint"},
	{"RasterTask", profile.CatGraphics, "Raster"},
	{"CompositeLayers", profile.CatGraphics, "Composite"},
	{"Commit", profile.CatGraphics, "Composite"},
	{"Layerize", profile.CatGraphics, "Composite"},
	{"UpdateLayerTree", profile.CatGraphics, "Composite"},
	{"UpdateLayer", profile.CatGraphics, "Composite"},
	{"Decode Image", profile.CatGraphics, "Image decode"},
	{"HitTest", profile.CatDOM, "Hit test"},
	{"MinorGC", profile.CatGC, "Minor GC"},
	{"MajorGC", profile.CatGC, "Major GC"},
	{"GCEvent", profile.CatGC, "Other"},
	{"V8.GCScavenger", profile.CatGC, "Minor GC"},
	{"V8.GCCompactor", profile.CatGC, "Major GC"},
	{"V8.GCFinalizeMC", profile.CatGC, "Major GC"},
	{"V8.GCIncrementalMarking", profile.CatGC, "Major GC"},
	{"BlinkGC.AtomicPhase", profile.CatGC, "Blink GC"},
	{"CppGC.IncrementalSweep", profile.CatGC, "Blink GC"},
	{"ResourceWillSendRequest", profile.CatNetwork, "Request"},
	{"ResourceSendRequest", profile.CatNetwork, "Request"},
	{"ResourceReceiveResponse", profile.CatNetwork, "Response"},
	{"ResourceReceivedData", profile.CatNetwork, "Response"},
	{"ResourceFinish", profile.CatNetwork, "Response"},
	{"ParseHTML", profile.CatHTMLParsing, "HTML"},
	{"ParseAuthorStyleSheet", profile.CatHTMLParsing, "CSS"},
	{"v8.compile", profile.CatJavaScript, "Compile"},
	{"V8.CompileCode", profile.CatJavaScript, "Compile"},
	{"V8.CompileModule", profile.CatJavaScript, "Compile"},
	{"V8.OptimizeCode", profile.CatJavaScript, "Compile"},
	{"v8.parseOnBackground", profile.CatJavaScript, "Parse"},
	{"V8.ParseFunction", profile.CatJavaScript, "Parse"},
})

func sortRules(r []Rule) []Rule {
	slices.SortFunc(r, func(a, b Rule) int { return cmp.Compare(a.Event, b.Event) })
	return r
}

var ruleOf = func() map[string]Rule {
	m := map[string]Rule{}
	for _, r := range EventRules {
		m[r.Event] = r
	}
	return m
}()

// Event returns the category and subcategory of a trace event, and whether
// it has a rule.
func Event(p *profile.Profile, name string) (profile.CategoryID, uint8, bool) {
	r, ok := ruleOf[name]
	if !ok {
		return 0, 0, false
	}
	return r.Category, profile.Subcategory(p.Categories, r.Category, r.Subcategory), true
}

// Frame returns the category and subcategory of a frame (rule 2).
func Frame(p *profile.Profile, f *profile.Frame) (profile.CategoryID, uint8) {
	switch f.Kind {
	case profile.KindIdle:
		return profile.CatIdle, 0
	case profile.KindProgram:
		return profile.CatOther, profile.Subcategory(p.Categories, profile.CatOther, "Program")
	case profile.KindRoot:
		return profile.CatOther, 0
	case profile.KindGC:
		return profile.CatGC, 0
	case profile.KindNative:
		if !jsSource(p) {
			return profile.CatOther, 0
		}
		return profile.CatJavaScript, profile.Subcategory(p.Categories, profile.CatJavaScript, "Native")
	}
	if p.Str(f.CodeType) == "wasm" {
		return profile.CatJavaScript, profile.Subcategory(p.Categories, profile.CatJavaScript, "Wasm")
	}
	if !jsSource(p) {
		// A Go, C++ or other native function of a pprof or folded input:
		// nothing says it is JavaScript.
		return profile.CatOther, 0
	}
	return profile.CatJavaScript, 0
}

// jsSource reports whether p's frames come from a JavaScript profiler:
// pprof and folded stacks carry any language's functions.
func jsSource(p *profile.Profile) bool {
	return p.Format != "pprof" && p.Format != "folded"
}

// Assign fills p.Samples.Category and .Subcategory for every sample of
// every thread with trace events, from tl's repaired samples (DevTools'
// fixMissingSamples), one timeline per thread in order. A thread without
// events needs no column: a sample's category is its node's (see
// ForSamples), and a long recording's column would be 2 bytes a sample
// (55 MB for 27 M samples). The columns are nil when no thread has events.
func Assign(p *profile.Profile, tls []*calls.Timeline) {
	p.Samples.Category, p.Samples.Subcategory = nil, nil
	if !slices.ContainsFunc(tls, func(tl *calls.Timeline) bool { return p.Threads[tl.Thread].Events.Len() > 0 }) {
		return
	}
	n := p.Samples.Len()
	p.Samples.Category = make([]profile.CategoryID, n)
	p.Samples.Subcategory = make([]uint8, n)
	// The threads at once, as many at a time as there are cores, the
	// largest first: each writes only its own samples' range (web-dev:
	// five threads, 6 ms one after the other).
	order := make([]int, 0, len(tls))
	for k, tl := range tls {
		if p.Threads[tl.Thread].Events.Len() > 0 {
			order = append(order, k)
		}
	}
	size := func(k int) int {
		th := &p.Threads[tls[k].Thread]
		return th.Samples.Len() + th.Events.Len()
	}
	slices.SortStableFunc(order, func(a, b int) int { return size(b) - size(a) })
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Go(func() {
			for k := next.Add(1) - 1; k < int64(len(order)); k = next.Add(1) - 1 {
				assignThread(p, tls[order[k]])
			}
		})
	}
	wg.Wait()
}

// assignThread is Assign for the thread of tl, which has events.
func assignThread(p *profile.Profile, tl *calls.Timeline) {
	th := &p.Threads[tl.Thread]
	base := int(th.Samples.Start)
	events := p.Events[th.Events.Start:th.Events.End]
	if len(events) == 0 {
		return
	}
	// The innermost enclosing event with a rule decides.
	sweep := profile.NewEventSweep(events, func(e *profile.Event) bool {
		_, _, ok := Event(p, p.Str(e.Name))
		return ok
	})
	// A node's category, found once (a sample's frame is its node's).
	type nodeCat struct {
		c     profile.CategoryID
		sub   uint8
		known bool
	}
	nodes := make([]nodeCat, len(tl.Node))
	ts := tl.Times.Cursor()
	// The innermost event's category, kept for the samples after it that
	// it holds too (a task holds many): a lookup by name for each was a
	// tenth of the assignment.
	lastTop, lastC, lastSub := -1, profile.CategoryID(0), uint8(0)
	for i, x := range tl.SamplesIn(0, tl.Len()) {
		open := sweep.At(ts.At(i))
		var c profile.CategoryID
		var sub uint8
		if len(open) > 0 {
			if top := int(open[len(open)-1]); top != lastTop {
				lastC, lastSub, _ = Event(p, p.Str(events[top].Name))
				lastTop = top
			}
			c, sub = lastC, lastSub
		} else {
			nc := &nodes[x]
			if !nc.known {
				nc.c, nc.sub = Frame(p, p.NodeFrame(tl.Node[x]))
				nc.known = true
			}
			c, sub = nc.c, nc.sub
		}
		p.Samples.Category[base+i] = c
		p.Samples.Subcategory[base+i] = sub
	}
}

// splitSamples is the number of samples from which TimesIn sums over two
// halves at once (a variable for tests).
var splitSamples = 1 << 20

// ForSamples returns the categories of tl's samples after Assign: per
// sample (perNode false: index them by sample), or, for a thread without
// events, per node of the timeline (perNode true: index them by
// tl.Sample(i)).
func ForSamples(p *profile.Profile, tl *calls.Timeline) (cats []profile.CategoryID, subs []uint8, perNode bool) {
	th := &p.Threads[tl.Thread]
	if perSample(p, tl) {
		base := int(th.Samples.Start)
		return p.Samples.Category[base : base+tl.Len()], p.Samples.Subcategory[base : base+tl.Len()], false
	}
	cats, subs = make([]profile.CategoryID, len(tl.Node)), make([]uint8, len(tl.Node))
	for x, nd := range tl.Node {
		cats[x], subs[x] = Frame(p, p.NodeFrame(nd))
	}
	return cats, subs, true
}

// perSample reports whether the samples of tl's thread have categories of
// their own (Assign: a thread with trace events), not their nodes'.
func perSample(p *profile.Profile, tl *calls.Timeline) bool {
	return p.Threads[tl.Thread].Events.Len() > 0 && p.Samples.Category != nil
}

// Times returns, for each category, the time the thread's samples spent in
// it: each sample lasts until the next (the last one, one average interval,
// as DevTools extrapolates it). Assign must have run.
func Times(p *profile.Profile, tl *calls.Timeline) []profile.Time {
	n := tl.Len()
	if n == 0 {
		return make([]profile.Time, len(p.Categories))
	}
	return TimesIn(p, tl, tl.Times.At(0), tl.End)
}

// TimesOfNodes is TimesIn from the time of the samples at each node of the
// timeline's thread (nodes, as calltree.Tree.SampleTimes gives them, the
// root's apart): a pass over the nodes instead of one over the samples
// (3 M of them in a long recording, 9 ms on two cores), each frame
// classified once (350 k nodes of 40 k frames: 3 ms as ForSamples does it,
// node by node). ok is false for a thread whose samples take their
// categories from its trace events (see ForSamples).
func TimesOfNodes(p *profile.Profile, tl *calls.Timeline, nodes []profile.Time, root profile.Time) (out []profile.Time, ok bool) {
	if perSample(p, tl) || len(nodes) != len(tl.Node) {
		return nil, false
	}
	byFrame := make([]profile.Time, len(p.Frames))
	for x, nd := range tl.Node {
		d := nodes[x]
		if x == 0 {
			d = root
		}
		byFrame[p.Nodes[nd].Frame] += d
	}
	out = make([]profile.Time, len(p.Categories))
	for f, d := range byFrame {
		if d == 0 {
			continue
		}
		if c, _ := Frame(p, &p.Frames[f]); int(c) < len(out) {
			out[c] += d
		}
	}
	return out, true
}

// TimesIn is Times with every sample clipped to [from, to].
func TimesIn(p *profile.Profile, tl *calls.Timeline, from, to profile.Time) []profile.Time {
	cats, _, perNode := ForSamples(p, tl)
	sum := func(lo, hi int) []profile.Time {
		out := make([]profile.Time, len(p.Categories))
		samples := tl.Cursor(lo)
		var next profile.Time // time i, read as the end of sample i−1
		ts := tl.Times.Cursor()
		if lo < hi {
			next = ts.At(lo)
		}
		n := tl.Times.Len()
		for i := lo; i < hi; i++ {
			var c profile.CategoryID
			if perNode {
				c = cats[samples.At(i)]
			} else {
				c = cats[i]
			}
			t0 := next
			if next = tl.End; i+1 < n {
				next = ts.At(i + 1)
			}
			if d := min(next, to) - max(t0, from); int(c) < len(out) && d > 0 {
				out[c] += d
			}
		}
		return out
	}
	n := tl.Len()
	if n < splitSamples {
		return sum(0, n)
	}
	// A long recording: two halves at once.
	var second []profile.Time
	var wg sync.WaitGroup
	wg.Go(func() { second = sum(n/2, n) })
	out := sum(0, n/2)
	wg.Wait()
	for c, t := range second {
		out[c] += t
	}
	return out
}

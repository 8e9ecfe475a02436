// Package view turns a thread's samples into weighted stacks under a view
// and a set of transforms, for trees and exporters:
//
//   - Views: "all" keeps every frame; "js" keeps JS frames plus the platform
//     frames relevant to JS (RelevantForJS: natives — DOM/WebIDL and builtin
//     calls —, GC, and the trace events that explain where JS was entered or
//     left: event dispatch, timers, animation frames, microtasks, script
//     evaluation, compile, GC); "platform" keeps the platform frames
//     (RelevantForPlatform: everything that is not a JS function).
//   - A sample's stack is its trace events (outermost first, for a trace
//     thread) followed by its JS stack as DevTools reconstructs it (after
//     fixMissingSamples; a GC sample on top of the previous stack). It lasts
//     until the next sample (the last one, one average interval).
//   - Transforms, applied in this order: the range From–To (clipping each
//     sample's time), Drop (samples through a function vanish), Focus (only
//     samples through a function, re-rooted at its outermost call), Merge (a
//     function's frames are removed: its time goes to its caller), and
//     CollapseRecursion (directly recursive frames become one).
//
// Functions are matched by name, or by "name@url:line" with the 1-based line
// people see (see Matcher).
package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
)

// View selects the frames of a stack.
type View int

// The views.
const (
	All View = iota
	JS
	Platform
)

// ParseView parses "all", "js" or "platform".
func ParseView(s string) (View, error) {
	switch s {
	case "all", "":
		return All, nil
	case "js":
		return JS, nil
	case "platform":
		return Platform, nil
	}
	return 0, fmt.Errorf("unknown view %q; want js, platform or all", s)
}

func (v View) String() string { return [...]string{"all", "js", "platform"}[v] }

// Matcher matches functions: by name, or by name, URL and 1-based line.
type Matcher struct {
	Name    string
	URL     string
	Line    int32 // 1-based; 0 means any
	withURL bool
}

// ParseMatcher parses "name" or "name@url:line" (the URL may itself contain
// colons; the line is after the last one).
func ParseMatcher(s string) (Matcher, error) {
	name, loc, ok := strings.Cut(s, "@")
	if !ok {
		if s == "" {
			return Matcher{}, fmt.Errorf("empty function name")
		}
		return Matcher{Name: s}, nil
	}
	m := Matcher{Name: name, URL: loc, withURL: true}
	if i := strings.LastIndexByte(loc, ':'); i >= 0 {
		if n, err := strconv.Atoi(loc[i+1:]); err == nil && n > 0 {
			m.URL, m.Line = loc[:i], int32(n)
		}
	}
	return m, nil
}

// Match reports whether frame f is the function m names.
func (m Matcher) Match(p *profile.Profile, f *profile.Frame) bool {
	if p.Str(f.Name) != m.Name {
		return false
	}
	if !m.withURL {
		return true
	}
	return p.Str(f.URL) == m.URL && (m.Line == 0 || f.Line+1 == m.Line)
}

// Options selects the view and transforms. The zero value is the "all" view
// with no transform.
type Options struct {
	View              View
	From, To          profile.Time // ns from the thread's first sample; To 0 means the end
	Drop, Focus       []Matcher
	Merge             []Matcher
	CollapseRecursion bool
}

// IsZero reports whether o asks for nothing beyond the default.
func (o *Options) IsZero() bool {
	return o.View == All && o.From == 0 && o.To == 0 && len(o.Drop) == 0 && len(o.Focus) == 0 &&
		len(o.Merge) == 0 && !o.CollapseRecursion
}

// jsRelevantEvents are the trace events kept in the JS view.
var jsRelevantEvents = map[string]bool{
	"EventDispatch": true, "TimerFire": true, "FireAnimationFrame": true, "FireIdleCallback": true,
	"RunMicrotasks": true, "EvaluateScript": true, "v8.evaluateModule": true, "FunctionCall": true,
	"v8.compile": true, "V8.CompileCode": true, "V8.CompileModule": true, "V8.OptimizeCode": true,
	"MajorGC": true, "MinorGC": true, "GCEvent": true, "XHRReadyStateChange": true, "XHRLoad": true,
	"HandlePostMessage": true, "V8Console::runTask": true,
}

// RelevantForJS reports whether frame f is kept in the JS view.
func RelevantForJS(p *profile.Profile, f *profile.Frame) bool {
	switch f.Kind {
	case profile.KindJS, profile.KindNative, profile.KindGC:
		return true
	case profile.KindEvent:
		return jsRelevantEvents[p.Str(f.Name)]
	}
	return false
}

// RelevantForPlatform reports whether frame f is kept in the platform view.
func RelevantForPlatform(f *profile.Frame) bool { return f.Kind != profile.KindJS }

// Stack is one weighted stack, root first. Frames is only valid during the
// callback that receives it.
type Stack struct {
	Frames []profile.FrameID
	Weight profile.Time
	Sample int // index of the sample in the thread
}

// Stacks calls fn with each sample of the timeline's thread under opts.
// Samples that a transform removes are not reported; samples left with no
// frame in the view are reported with no frames. Event frames are added to
// the profile as KindEvent frames.
func Stacks(tl *calls.Timeline, opts Options, fn func(Stack)) {
	p := tl.Profile
	th := &p.Threads[tl.Thread]
	n := len(tl.Samples)
	if n == 0 {
		return
	}
	b := profile.NewBuilderFor(p)
	eventFrame := map[profile.StringID]profile.FrameID{}
	frameOfEvent := func(name profile.StringID) profile.FrameID {
		f, ok := eventFrame[name]
		if !ok {
			f = b.Frame(profile.Frame{Name: name, Line: -1, Column: -1, Kind: profile.KindEvent, Category: profile.CatOther})
			eventFrame[name] = f
		}
		return f
	}
	keep := func(f profile.FrameID) bool {
		fr := &p.Frames[f]
		switch opts.View {
		case JS:
			return RelevantForJS(p, fr)
		case Platform:
			return RelevantForPlatform(fr)
		}
		return true
	}
	origin := tl.Times[0]
	from, to := origin+opts.From, tl.Times[n]
	if opts.To > 0 {
		to = min(to, origin+opts.To)
	}
	events := p.Events[th.Events.Start:th.Events.End]
	sweep := profile.NewEventSweep(events, nil) // enclosing events, outermost first
	var path, stack []profile.FrameID
	prevNonGC := int32(-1)
	for i := range n {
		x := tl.Samples[i]
		isGC := tl.GC >= 0 && tl.Node[x] == tl.Node[tl.GC]
		base := x
		if isGC && prevNonGC >= 0 {
			base = prevNonGC
		} else if !isGC {
			prevNonGC = x
		}
		start, end := max(tl.Times[i], from), min(tl.Times[i+1], to)
		open := sweep.At(tl.Times[i])
		if end <= start {
			continue
		}
		// The stack: events, then the JS path (root excluded), then GC.
		stack = stack[:0]
		for _, e := range open {
			if f := frameOfEvent(events[e].Name); keep(f) {
				stack = append(stack, f)
			}
		}
		path = path[:0]
		for y := base; y >= 0 && tl.Parent[y] >= 0; y = tl.Parent[y] {
			path = append(path, p.Nodes[tl.Node[y]].Frame)
		}
		for j := len(path) - 1; j >= 0; j-- {
			if keep(path[j]) {
				stack = append(stack, path[j])
			}
		}
		if isGC && base != x {
			if f := p.Nodes[tl.Node[x]].Frame; keep(f) {
				stack = append(stack, f)
			}
		}
		var ok bool
		if stack, ok = transform(p, stack, &opts); ok {
			fn(Stack{Frames: stack, Weight: end - start, Sample: i})
		}
	}
}

// transform applies Drop, Focus, Merge and CollapseRecursion to a stack in
// place; ok is false when the sample is removed.
func transform(p *profile.Profile, st []profile.FrameID, o *Options) ([]profile.FrameID, bool) {
	match := func(ms []Matcher, f profile.FrameID) bool {
		for _, m := range ms {
			if m.Match(p, &p.Frames[f]) {
				return true
			}
		}
		return false
	}
	for _, f := range st {
		if match(o.Drop, f) {
			return nil, false
		}
	}
	if len(o.Focus) > 0 {
		k := -1
		for j, f := range st {
			if match(o.Focus, f) {
				k = j
				break
			}
		}
		if k < 0 {
			return nil, false
		}
		st = st[k:]
	}
	if len(o.Merge) > 0 || o.CollapseRecursion {
		j := 0
		for _, f := range st {
			if match(o.Merge, f) {
				continue
			}
			if o.CollapseRecursion && j > 0 && p.FunctionKey(st[j-1]) == p.FunctionKey(f) {
				continue
			}
			st[j] = f
			j++
		}
		st = st[:j]
	}
	return st, true
}

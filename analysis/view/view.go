// Package view defines the views, ranges and transforms of jsprof's trees
// and applies them to a tree's call paths (Tree) and to a thread's calls
// (Calls):
//
//   - Views: "all" keeps every frame; "js" keeps JS frames plus the platform
//     frames relevant to JS (RelevantForJS: natives — DOM/WebIDL and builtin
//     calls —, GC, and the trace events that explain where JS was entered or
//     left: event dispatch, timers, animation frames, microtasks, script
//     evaluation, compile, GC); "platform" keeps the platform frames
//     (RelevantForPlatform: everything that is not a JS function). A frame
//     out of the view is transparent: its time goes to the frame below.
//   - The range From–To clips the tree as DevTools clips its trees to a
//     selection; the session builds the tree of the range, and Tree maps it.
//   - Transforms: Drop (the time through a function vanishes), Focus (only
//     the time through a function, re-rooted at its outermost call), Merge
//     (a function's frames are removed: its time goes to its caller), and
//     CollapseRecursion (directly recursive frames become one).
//
// Functions are matched by name, or by "name@url:line" with the 1-based line
// people see (see Matcher).
package view

import (
	"fmt"

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

package profile

import (
	"iter"
	"math"
	"time"
)

// Time is an instant in nanoseconds on the clock of the input file.
type Time int64

// TimeFromMicros converts a time or duration in microseconds, as Chrome and V8
// write them, to a Time, rounding to the nearest nanosecond. The integer part
// is converted exactly (scaling first would lose up to 128 ns on epoch-µs
// clocks, whose ns values exceed float64's 53-bit mantissa).
func TimeFromMicros(us float64) Time {
	ip := math.Floor(us)
	if math.IsNaN(us) || math.Abs(ip) >= (1<<63-1)/1000 {
		return Time(math.Copysign(1, us)) * math.MaxInt64 // saturates, NaN by its sign bit (converting the float would be platform-dependent); readers reject such values
	}
	return Time(int64(ip)*1000 + int64(math.Round((us-ip)*1000)))
}

// Micros returns t in microseconds, the unit DevTools uses.
func (t Time) Micros() float64 { return float64(t) / 1000 }

// Millis returns t in milliseconds.
func (t Time) Millis() float64 { return float64(t) / 1e6 }

// Sub returns the duration t−u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// StringID indexes Profile.Strings. StringID 0 is always the empty string.
type StringID int32

// FrameID indexes Profile.Frames.
type FrameID int32

// NodeID indexes Profile.Nodes.
type NodeID int32

// ThreadID indexes Profile.Threads.
type ThreadID int32

// CategoryID indexes Profile.Categories.
type CategoryID uint8

// NoNode is the NodeID that means "no node", e.g. the parent of a root.
const NoNode NodeID = -1

// FrameKind classifies a frame.
type FrameKind uint8

// The frame kinds. The meta kinds (Root, Program, Idle, GC) are V8's VM-state
// pseudo-frames; XS calls its root "(host)" and its GC "(gc)".
const (
	KindJS      FrameKind = iota // a JavaScript (or wasm) function with a script
	KindNative                   // a builtin or API callback (script id "0", no URL)
	KindRoot                     // (root), XS (host)
	KindProgram                  // (program): VM work with no symbolizable frame
	KindIdle                     // (idle)
	KindGC                       // (garbage collector), XS (gc)
	// KindEvent is a trace event used as a frame (a platform frame in the
	// views of analysis/view); readers never make one.
	KindEvent
)

var kindNames = [...]string{"js", "native", "root", "program", "idle", "gc", "event"}

func (k FrameKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Meta reports whether k is one of the VM-state pseudo-frames.
func (k FrameKind) Meta() bool { return k >= KindRoot && k <= KindGC }

// Frame is a distinct call frame. Frames are deduplicated on all their fields.
type Frame struct {
	Name     StringID // function name; "" for anonymous functions and script top level
	URL      StringID
	ScriptID StringID // V8 script id as a string ("0" for natives)
	Line     int32    // 0-based line of the function start; -1 if unknown
	Column   int32    // 0-based column of the function start; -1 if unknown
	CodeType StringID // "JS", "wasm", "other" from trace chunks; "" if absent
	Kind     FrameKind
	Category CategoryID
}

// Node is a call-tree node: the call path from its thread's root to Frame.
type Node struct {
	Parent      NodeID // NoNode for a thread's root; otherwise < this node's ID
	Frame       FrameID
	InputID     int64    // the node id in the input file
	HitCount    int64    // hitCount from the input (advisory; see Thread.HitCounts)
	DeoptReason StringID // "" when absent or "no reason"
}

// Edge is an extra caller→callee edge of a call-graph profile.
type Edge struct {
	From, To NodeID
}

// LineTick is one entry of a node's positionTicks: samples whose top frame was
// this node, at a 1-based source line.
type LineTick struct {
	Node  NodeID
	Line  int32 // 1-based, as V8 writes it
	Ticks int64
}

// Event is a trace event of a sampled thread, as DevTools keeps it for the
// thread's entries: a complete event (X, or a B/E pair made complete the way
// DevTools pairs them) or an instant (I). Events of a thread are sorted as
// DevTools sorts them: by start, then longest first, then in file order.
type Event struct {
	Thread        ThreadID
	Name, Cat     StringID
	Phase         byte // 'X' or 'I'
	Start         Time
	Dur           Time  // 0 for unmatched B and instants without one (an I event keeps a dur it carries, as DevTools does)
	SampleTraceID int64 // args.[beginData.|data.]sampleTraceId; 0 if none
}

// End returns e.Start+e.Dur.
func (e *Event) End() Time { return e.Start + e.Dur }

// TraceID maps a trace id of a thread's profile (ProfileChunk trace_ids) to
// the node whose stack it names.
type TraceID struct {
	Thread ThreadID
	ID     int64
	Node   NodeID
}

// Samples is the sample table, one row per sample, as parallel columns.
// Rows are grouped by thread (Thread.Samples) and sorted by time within a thread.
type Samples struct {
	Node Nodes
	Time Times
	// Line is the 1-based source line of each sample (0 = none), or nil when the
	// input has no per-sample lines.
	Line []int32
	// Column is the per-sample column (0 = none), or nil.
	Column []int32
	// Category and Subcategory are each sample's category (an index into
	// Profile.Categories and its Subcategories), or nil until an analysis
	// assigns them (analysis/category). They are filled for the threads
	// with trace events only; category.ForSamples gives any thread's.
	Category    []CategoryID
	Subcategory []uint8
}

// Len returns the number of samples.
func (s *Samples) Len() int { return s.Node.Len() }

// Range is a half-open index range [Start, End).
type Range struct{ Start, End int32 }

// Len returns End−Start.
func (r Range) Len() int { return int(r.End - r.Start) }

// Shape says whether a thread's nodes form a tree or a call graph.
type Shape uint8

// The shapes.
const (
	ShapeTree      Shape = iota // every node has one parent: a node is a call path
	ShapeCallGraph              // one node per function, several callers (XS)
)

func (s Shape) String() string {
	if s == ShapeCallGraph {
		return "callgraph"
	}
	return "tree"
}

// Thread is one sampled thread: its call tree (or graph) and its samples.
type Thread struct {
	PID, TID  int64
	Name      string
	ProfileID string // the trace profile id ("0x1"); "" for a bare .cpuprofile
	Nodes     Range  // Nodes.Start is the root
	Samples   Range
	Events    Range // trace events; empty for a bare .cpuprofile
	// ProcessName is the process_name metadata of a trace; "" if none.
	ProcessName string
	// URL is the page a trace's renderer process showed: the URL of its
	// main frame (TracingStartedInBrowser's frames, then the last
	// FrameCommittedInBrowser), or of its first frame for a process of
	// out-of-process iframes; "" if none.
	URL string
	// Start and End are the profile's startTime and endTime as the input gives
	// them (End may be missing or bogus: see analyses for how each tool derives it).
	Start, End Time
	// DevToolsEnd is the end DevTools takes for the profile when it differs
	// from End, else 0: for a trace, DevTools sums the first ProfileChunk's
	// time deltas only (and ignores the endTime Node writes in the last),
	// where End is the real end. Analyses that reproduce DevTools use it
	// (EndAsDevTools).
	DevToolsEnd Time
	// LastSampleEnd is the end of the last sample when the input gives it
	// (the legacy format's extra timestamp); 0 otherwise.
	LastSampleEnd Time
	// HitCounts reports whether the input carried hitCount on its nodes.
	HitCounts bool
	Shape     Shape
}

// EndAsDevTools returns the end DevTools takes for the profile.
func (t *Thread) EndAsDevTools() Time {
	if t.DevToolsEnd != 0 {
		return t.DevToolsEnd
	}
	return t.End
}

// Root returns the thread's root node.
func (t *Thread) Root() NodeID { return NodeID(t.Nodes.Start) }

// Profile is a sampled CPU profile of one or more threads.
type Profile struct {
	// Format names the input format, e.g. "cpuprofile", "cpuprofile-legacy",
	// "xs", "chrome-trace".
	Format string
	// Generic reports a trace without any of the events that mark a Chrome
	// web trace for DevTools (TracingStartedInBrowser, TracingStartedInPage,
	// TracingSessionIdForWorker, CpuProfile): DevTools then shows every event.
	Generic bool
	Strings []string
	Frames  []Frame
	Nodes   []Node
	Edges   []Edge
	// LineTicks are the nodes' positionTicks entries: a thread's together,
	// each node's as the input lists them, the nodes in no set order (the
	// V8 reader keeps them in input order).
	LineTicks []LineTick
	TraceIDs  []TraceID // sorted by thread and id
	Events    []Event   // grouped by thread (Thread.Events)
	// EventArgs holds the raw JSON args of each event when the reader was
	// asked to keep them (for writing a trace again); nil otherwise.
	EventArgs   [][]byte
	Samples     Samples
	Threads     []Thread
	Categories  []Category
	Diagnostics Diagnostics
	// Bounds is the time span of the whole input as the DevTools trace
	// engine computes it (MetaHandler traceBounds): for a trace, over the
	// events of every process and thread, sampled or not. Zero when the
	// reader does not record it (see devtoolsstats.TraceBounds).
	Bounds Span
}

// Span is a time interval.
type Span struct {
	Start, End Time
}

// Str returns the string with the given id.
func (p *Profile) Str(id StringID) string { return p.Strings[id] }

// NodeFrame returns the frame of node n.
func (p *Profile) NodeFrame(n NodeID) *Frame { return &p.Frames[p.Nodes[n].Frame] }

// Stack iterates over the nodes from n up to, but excluding, its thread's root:
// leaf first.
func (p *Profile) Stack(n NodeID) iter.Seq[NodeID] {
	return func(yield func(NodeID) bool) {
		for n != NoNode && p.Nodes[n].Parent != NoNode {
			if !yield(n) {
				return
			}
			n = p.Nodes[n].Parent
		}
	}
}

// Depths returns the depth of every node: −1 for roots, 0 for their children.
func (p *Profile) Depths() []int32 {
	d := make([]int32, len(p.Nodes))
	for i, n := range p.Nodes {
		if n.Parent == NoNode {
			d[i] = -1
		} else {
			d[i] = d[n.Parent] + 1
		}
	}
	return d
}

// FunctionKey identifies a function for aggregation as DevTools' trees tell
// functions apart (TraceTree's generateEventID, docs/devtools-engine.md §7):
// by name, script, line and column, where the script is the script id or,
// for a frame without one (or with V8's "0" of natives and builtins), the
// URL. Frames of one script with different URLs, which old Chrome profiles
// have, are one function. A trace event used as a frame (KindEvent) is its
// name, apart from any JS function of that name. The key holds no URL to
// show: take it from a frame of the function.
type FunctionKey struct {
	Name, Script StringID
	Line, Column int32
	Event        bool
}

// FunctionKey returns the function of frame f.
func (p *Profile) FunctionKey(f FrameID) FunctionKey {
	fr := &p.Frames[f]
	if fr.Kind == KindEvent {
		return FunctionKey{Name: fr.Name, Line: -1, Column: -1, Event: true}
	}
	script := fr.ScriptID
	if script == 0 || p.Strings[script] == "0" {
		script = fr.URL
	}
	return FunctionKey{fr.Name, script, fr.Line, fr.Column, false}
}

// ThreadSamples returns thread t's sample columns as subslices of p.Samples.
func (p *Profile) ThreadSamples(t ThreadID) Samples {
	r := p.Threads[t].Samples
	s := Samples{Node: p.Samples.Node.Slice(int(r.Start), int(r.End)), Time: p.Samples.Time.Slice(int(r.Start), int(r.End))}
	if p.Samples.Line != nil {
		s.Line = p.Samples.Line[r.Start:r.End]
	}
	if p.Samples.Column != nil {
		s.Column = p.Samples.Column[r.Start:r.End]
	}
	return s
}

// Package report holds the JSON-tagged types of every machine-readable
// output of jsprof: summary, top (functions and lines), tree, calls and
// flame-chart entries. The CLI writes them (and the viewer's server will
// serve them); the README's "JSON contracts" section documents them and a
// test checks it against these types.
//
// Units are in the field names: …Ms is milliseconds, …Us (and ts, dur,
// self of calls and entries) microseconds. Times are held as integer
// nanoseconds (Millis, Micros) and written as exact decimals, so that sums
// of written values equal the written totals. line and col are 0-based, as
// in V8's callFrame (−1 when unknown); sourceLine is 1-based. Slices are
// never written as null.
package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

// Millis is a duration or time in nanoseconds written as milliseconds with
// up to six decimals.
type Millis int64

// MarshalJSON implements json.Marshaler.
func (m Millis) MarshalJSON() ([]byte, error) { return jsonw.Millis(nil, int64(m)), nil }

// Micros is a duration or time in nanoseconds written as microseconds with
// up to three decimals.
type Micros int64

// MarshalJSON implements json.Marshaler.
func (m Micros) MarshalJSON() ([]byte, error) { return jsonw.Micros(nil, int64(m)), nil }

// Thread names a thread: pid and tid as the input gives them (a bare
// .cpuprofile is pid 1, tid 1, as in DevTools) and its name.
type Thread struct {
	PID  int64  `json:"pid"`
	TID  int64  `json:"tid"`
	Name string `json:"name"`
}

// Function names a function as jsprof tells functions apart (name, script,
// line and column, as DevTools' trees do); Event marks a trace event
// (Layout, FunctionCall, …), which has no URL and line −1.
type Function struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	Line  int32  `json:"line"`
	Col   int32  `json:"col"`
	Event bool   `json:"event,omitempty"`
}

// Diagnostic is an oddity of the input, counted.
type Diagnostic struct {
	Code    string `json:"code"`
	Count   int64  `json:"count"`
	Message string `json:"message"`
}

// Diagnostics converts a profile's diagnostics, never nil.
func Diagnostics(ds profile.Diagnostics) []Diagnostic {
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, Diagnostic{Code: d.Code, Count: d.Count, Message: d.Message})
	}
	return out
}

// Summary is `jsprof summary --json`.
type Summary struct {
	Format      string          `json:"format"`
	File        string          `json:"file"`
	Threads     []ThreadSummary `json:"threads"`
	Diagnostics []Diagnostic    `json:"diagnostics"`
}

// ThreadSummary is one thread of a Summary.
type ThreadSummary struct {
	Thread
	// StartUs and EndUs are the profile's start and end as the file gives
	// them (µs on the file's clock).
	StartUs Micros `json:"startUs"`
	EndUs   Micros `json:"endUs"`
	Samples int    `json:"samples"`
	// ProfileCalls counts the estimated JS calls (DevTools' ProfileCalls).
	ProfileCalls int `json:"profileCalls"`
	// SampledMs is the time the thread's trees add up to: the samples'
	// time of a profile (within its start and end), the time of a trace
	// thread's Call Tree (trace events and JS calls).
	SampledMs   Millis `json:"sampledMs"`
	Nodes       int    `json:"nodes"`
	Shape       string `json:"shape"`
	Events      int    `json:"events"`
	ProcessName string `json:"processName"`
	// URL is the page of a trace renderer's process ("" when unknown).
	URL string `json:"url"`
	// MeanIntervalUs and MedianIntervalUs are the sampling intervals.
	MeanIntervalUs   Micros     `json:"meanIntervalUs"`
	MedianIntervalUs Micros     `json:"medianIntervalUs"`
	Categories       Categories `json:"categories"`
}

// Categories is a thread's time per category.
type Categories struct {
	// Samples is the samples' time per jsprof category (by name).
	Samples map[string]Millis `json:"samples"`
	// DevTools is DevTools' Summary over the whole trace per DevTools
	// category id, idle included (traces only).
	DevTools map[string]Millis `json:"devtools,omitempty"`
}

// Top is `jsprof top --json`.
type Top struct {
	Threads []TopThread `json:"threads"`
}

// TopThread is one thread of Top: its functions, hottest first.
type TopThread struct {
	Thread
	// TotalSemantics is the total-time semantics used: devtools, vscode or
	// xsbug.
	TotalSemantics string        `json:"totalSemantics"`
	Functions      []FunctionRow `json:"functions"`
}

// FunctionRow is a function with its self and total time.
type FunctionRow struct {
	Function
	SelfMs  Millis `json:"selfMs"`
	TotalMs Millis `json:"totalMs"`
}

// Lines is `jsprof top --lines --json`.
type Lines struct {
	Threads []LinesThread `json:"threads"`
}

// LinesThread is one thread of Lines: its hottest source lines.
type LinesThread struct {
	Thread
	Lines []LineRow `json:"lines"`
}

// LineRow is the self time of one source line of a function.
type LineRow struct {
	Function
	SourceLine int32  `json:"sourceLine"` // 1-based
	Ticks      int64  `json:"ticks"`
	SelfMs     Millis `json:"selfMs"`
}

// Tree is `jsprof tree --json`.
type Tree struct {
	Threads []TreeThread `json:"threads"`
}

// TreeThread is one thread's tree as a flat node table: Nodes[0] is the
// root (no function; its totalMs is the thread's time), every other node
// comes after its parent, children in the order printed (largest first).
type TreeThread struct {
	Thread
	SampledMs Millis     `json:"sampledMs"`
	BottomUp  bool       `json:"bottomUp"`
	Nodes     []TreeNode `json:"nodes"`
}

// TreeNode is one node of a TreeThread: a call path (top-down) or a
// function reached through a path of callers (bottom-up).
type TreeNode struct {
	Parent int32 `json:"parent"` // index in Nodes; −1 for the root
	Depth  int32 `json:"depth"`  // 0 for the root
	Function
	SelfMs  Millis `json:"selfMs"`
	TotalMs Millis `json:"totalMs"`
	Calls   int    `json:"calls"`
}

// Call is one line of `jsprof calls --json`: an estimated JS call
// (DevTools' ProfileCall), in DevTools' order.
type Call struct {
	PID      int64  `json:"pid"`
	TID      int64  `json:"tid"`
	TS       Micros `json:"ts"`
	Dur      Micros `json:"dur"`
	Self     Micros `json:"self"`
	Name     string `json:"name"`
	URL      string `json:"url"`
	Line     int32  `json:"line"`
	Col      int32  `json:"col"`
	ScriptID string `json:"scriptId"`
	NodeID   int64  `json:"nodeId"` // the node's id in the file
}

// Entry is one line of `jsprof calls --json --entries`: a flame-chart
// entry DevTools draws, depth-first.
type Entry struct {
	PID         int64  `json:"pid"`
	TID         int64  `json:"tid"`
	Level       int32  `json:"level"`
	TS          Micros `json:"ts"`
	Dur         Micros `json:"dur"`
	Name        string `json:"name"`
	ProfileCall bool   `json:"profileCall"`
}

// UnmarshalJSON implements json.Unmarshaler: a decimal number of ms.
func (m *Millis) UnmarshalJSON(b []byte) error {
	v, err := parseScaled(b, 1e6)
	*m = Millis(v)
	return err
}

// UnmarshalJSON implements json.Unmarshaler: a decimal number of µs.
func (m *Micros) UnmarshalJSON(b []byte) error {
	v, err := parseScaled(b, 1e3)
	*m = Micros(v)
	return err
}

// parseScaled parses a JSON number and returns it times scale, rounded.
func parseScaled(b []byte, scale float64) (int64, error) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("want a number, got %s", b)
	}
	return int64(math.Round(f * scale)), nil
}

package report

// The types below are the JSON answers of the viewer's server (jsprof view,
// internal/server). Times in them are µs from the thread's origin (its
// first sample, the origin of --from/--to) unless the name says ms.

// ViewerInfo is the viewer's /api/info: the file, its threads and the
// categories with their colours.
type ViewerInfo struct {
	File        string           `json:"file"`
	Format      string           `json:"format"`
	Threads     []ViewerThread   `json:"threads"`
	Categories  []ViewerCategory `json:"categories"`
	Diagnostics []Diagnostic     `json:"diagnostics"`
	// Default is the index of the thread shown first (the one with the
	// most samples).
	Default int `json:"default"`
}

// ViewerThread is one thread of ViewerInfo: Index is its index in the
// session (the t= parameter of every other request), FromUs and ToUs its
// window (what DevTools opens), µs from its origin.
type ViewerThread struct {
	Thread
	Index       int    `json:"index"`
	ProcessName string `json:"processName"`
	Trace       bool   `json:"trace"`
	Samples     int    `json:"samples"`
	FromUs      Micros `json:"fromUs"`
	ToUs        Micros `json:"toUs"`
	// OriginUs is the thread's origin on the file's clock (µs), so that
	// threads can be drawn on one time axis.
	OriginUs Micros `json:"originUs"`
}

// ViewerCategory is a category of the profile and its display colour (a
// name: yellow, purple, …, transparent for Idle).
type ViewerCategory struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// FlameBoxes is the viewer's /api/flame: the flame-chart boxes to draw for
// a time window at a width in pixels, column by column. A box with id ≥ 0
// is one of the thread's flame-chart entries (DevTools' entries of a trace
// thread, the calls at their depth for a .cpuprofile; id is its index);
// id −1 is a run of entries narrower than a pixel merged into one box
// (name −1, count entries).
type FlameBoxes struct {
	FromUs Micros `json:"fromUs"`
	ToUs   Micros `json:"toUs"`
	// Levels is the number of levels of the whole flame chart.
	Levels int      `json:"levels"`
	Level  []int32  `json:"level"`
	Start  []Micros `json:"start"`
	Dur    []Micros `json:"dur"`
	Name   []int32  `json:"name"` // index in Names, −1 for a merged box
	Cat    []uint16 `json:"cat"`
	ID     []int32  `json:"id"`
	Count  []int32  `json:"count"`
	Names  []string `json:"names"`
}

// FlameEntry is the viewer's /api/entry: one flame-chart entry in detail.
type FlameEntry struct {
	ID int32 `json:"id"`
	Function
	Category string `json:"category"`
	StartUs  Micros `json:"startUs"`
	DurUs    Micros `json:"durUs"`
	SelfUs   Micros `json:"selfUs"`
	Level    int32  `json:"level"`
}

// Activity is the viewer's /api/activity: the category activity graph of
// a window binned per pixel. Shares[c][x] is the share (0 to 1) of pixel
// x's time spent in category c; Stack[x] is the stack (an id for
// /api/stack) with the most time in pixel x, −1 for none.
type Activity struct {
	FromUs Micros      `json:"fromUs"`
	ToUs   Micros      `json:"toUs"`
	Shares [][]float32 `json:"shares"`
	Stack  []int32     `json:"stack"`
}

// ViewerStack is the viewer's /api/stack: a stack's frames, outermost
// first.
type ViewerStack struct {
	Frames []Function `json:"frames"`
}

// ViewerTree is the viewer's /api/tree: the rows of a call tree (top-down)
// or bottom-up tree under a view, range and transforms, trimmed to the
// children of the root and of the open nodes, each list largest first (by
// total top-down, by self bottom-up) and cut at a limit (More counts the
// rows left out under a parent).
type ViewerTree struct {
	TotalMs  Millis      `json:"totalMs"`
	BottomUp bool        `json:"bottomUp"`
	Rows     []ViewerRow `json:"rows"`
}

// ViewerRow is one row of a ViewerTree or ViewerFunctions: ID is the node
// (or function) id to open or select, Parent the parent node's id (0: the
// root; −1 in function lists), Func the function's id.
type ViewerRow struct {
	ID     int32 `json:"id"`
	Parent int32 `json:"parent"`
	Func   int32 `json:"func"`
	Function
	SelfMs   Millis `json:"selfMs"`
	TotalMs  Millis `json:"totalMs"`
	Calls    int    `json:"calls"`
	Children bool   `json:"children"`
	More     int    `json:"more"`
}

// ViewerFunctions is the viewer's /api/functions: the per-function table
// (DevTools' totals unless another semantics is asked for), hottest first
// by self time.
type ViewerFunctions struct {
	TotalMs        Millis      `json:"totalMs"`
	TotalSemantics string      `json:"totalSemantics"`
	Rows           []ViewerRow `json:"rows"`
}

// ViewerFunction is the viewer's /api/function: one function with its
// callers and callees (merged over its outermost calls) and its per-line
// self time.
type ViewerFunction struct {
	Function ViewerRow   `json:"function"`
	Callers  []ViewerRow `json:"callers"`
	Callees  []ViewerRow `json:"callees"`
	Lines    []LineRow   `json:"lines"`
}

// FlameGraph is the viewer's /api/flamegraph: the aggregated flame graph
// (the top-down tree) from a node, as a flat table in depth-first order,
// children largest first (left-heavy), without the nodes narrower than
// the minimum.
type FlameGraph struct {
	TotalMs Millis      `json:"totalMs"`
	Root    int32       `json:"root"`
	Rows    []ViewerRow `json:"rows"`
}

// ViewerSource is the viewer's /api/source: the text of a script read
// under a --source-root.
type ViewerSource struct {
	URL  string `json:"url"`
	Path string `json:"path"`
	Text string `json:"text"`
}

// ViewerSummary is the viewer's /api/summary: per thread, its time, its
// samples and the time per category.
type ViewerSummary struct {
	Threads     []ViewerThreadSummary `json:"threads"`
	Diagnostics []Diagnostic          `json:"diagnostics"`
}

// ViewerThreadSummary is one thread of a ViewerSummary.
type ViewerThreadSummary struct {
	Thread
	SampledMs        Millis            `json:"sampledMs"`
	Samples          int               `json:"samples"`
	Nodes            int               `json:"nodes"`
	Events           int               `json:"events"`
	MeanIntervalUs   Micros            `json:"meanIntervalUs"`
	MedianIntervalUs Micros            `json:"medianIntervalUs"`
	Categories       map[string]Millis `json:"categories"`
}

// ViewerStatus is the viewer's /api/status: whether the file is loaded.
type ViewerStatus struct {
	State string `json:"state"` // loading, ready or error
	Read  int64  `json:"read"`  // bytes read so far
	Size  int64  `json:"size"`  // the file's size, −1 if unknown
	Error string `json:"error"`
}

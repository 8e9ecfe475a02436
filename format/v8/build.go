package v8

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/internal/pages"
	"github.com/jsprof/jsprof/profile"
)

// idIndex maps input node ids to raw node indexes: min plus the index
// when the nodes are numbered in order from the first (as V8 numbers
// them), else a dense slice when the ids are compact, a map otherwise.
type idIndex struct {
	min   int64
	n     int     // in order: ids min to min+n−1
	dense []int32 // index+1; 0 = absent
	m     map[int64]int32
}

func (x *idIndex) get(id int64) (int32, bool) {
	if x.n > 0 {
		if uint64(id-x.min) >= uint64(x.n) { // id-min may wrap
			return 0, false
		}
		return int32(id - x.min), true
	}
	if x.m != nil {
		i, ok := x.m[id]
		return i, ok
	}
	if id < x.min || uint64(id-x.min) >= uint64(len(x.dense)) { // id-min may wrap
		return 0, false
	}
	i := x.dense[id-x.min]
	return i - 1, i != 0
}

// orderedIDs enables indexIDs' shortcut for ids in order (a variable for
// tests, which count the times it is taken in idsByOrder).
var (
	orderedIDs = true
	idsByOrder atomic.Int64
)

func (p *parser) indexIDs() (*idIndex, error) {
	x := &idIndex{}
	if len(p.nodes) == 0 {
		return x, nil
	}
	if orderedIDs && p.inOrder == len(p.nodes) && !p.legacy {
		// Counted as they were read (noteOrder): the ids are distinct,
		// and the two passes over the raw table below were 7–8 ms of
		// the many-nodes shape's reading (350 k nodes).
		x.min, x.n = p.nodes[0].id, len(p.nodes)
		idsByOrder.Add(1)
		return x, nil
	}
	lo, hi := p.nodes[0].id, p.nodes[0].id
	for _, n := range p.nodes {
		lo, hi = min(lo, n.id), max(hi, n.id)
	}
	if span := uint64(hi - lo); span < uint64(4*len(p.nodes)+1024) {
		x.min, x.dense = lo, make([]int32, span+1)
		for i, n := range p.nodes {
			if x.dense[n.id-lo] != 0 {
				return nil, p.failf(n.off, p.nodePath(i)+".id", "duplicate node id %d", n.id)
			}
			x.dense[n.id-lo] = int32(i) + 1
		}
		return x, nil
	}
	x.m = make(map[int64]int32, len(p.nodes))
	for i, n := range p.nodes {
		if _, dup := x.m[n.id]; dup {
			return nil, p.failf(n.off, p.nodePath(i)+".id", "duplicate node id %d", n.id)
		}
		x.m[n.id] = int32(i)
	}
	return x, nil
}

func (p *parser) nodePath(i int) string {
	if p.legacy {
		return fmt.Sprintf("head(node %d in preorder)", i)
	}
	return fmt.Sprintf("%snodes[%d]", p.prefix, i)
}

// build turns the raw tables of a .cpuprofile into a one-thread profile.
func (p *parser) build() (*profile.Profile, error) {
	th := profile.Thread{PID: 1, TID: 1, Name: "main"}
	if err := p.appendThread(th); err != nil {
		return nil, err
	}
	prof := p.b.P
	if err := prof.Validate(); err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	return prof, nil
}

// appendThread turns the raw tables into a thread of p.b.P: renumber nodes
// in preorder from the root, detect call graphs and cycles, map samples,
// reconstruct times. th gives the thread's identity; its ranges, times and
// shape are filled in here.
func (p *parser) appendThread(th profile.Thread) error {
	if len(p.nodes) == 0 {
		return p.failf(p.nodesOff, p.prefix+"nodes", "%w: the profile has no nodes", profile.ErrEmpty)
	}
	b := p.b
	prof := b.P
	nodeBase := profile.NodeID(len(prof.Nodes))
	if p.legacy {
		prof.Format = "cpuprofile-legacy"
		p.fixLegacyIDs()
	}
	// The nodes' distinct frames, found on another core while the nodes
	// are ordered below (those of the nodes before the second half of a
	// table read in two, while it was still read: framesAhead).
	frames, from := p.frames, len(p.frameOf)
	frameOf := slices.Grow(p.frameOf, len(p.nodes)-from)[:len(p.nodes)] // raw node → index in frames
	p.frames, p.frameOf = frameTable{}, nil
	framesDone := make(chan struct{})
	go func() {
		defer close(framesDone)
		for i := from; i < len(frameOf); i++ {
			frameOf[i] = frames.index(p.nodes[i].frame())
		}
	}()
	defer func() { <-framesDone }() // the early returns below
	ids, err := p.indexIDs()
	if err != nil {
		return err
	}

	// 1. Children lists, as raw indexes. DevTools uses children when the first
	// node has them, else it builds them from parent links in array order.
	// In trace chunks (lenient), a link to a node no chunk defines (a chunk
	// without args.data) is counted and left out: a node whose parent is
	// missing is unreachable and dropped with its subtree and samples.
	n := len(p.nodes)
	var undefined int64
	kidStart := make([]int32, n+1)
	var kids []int32
	if p.nodes[0].hasChildren {
		// The raw indexes are written over the ids (4 bytes over 8), when
		// every node's ids come after the last node's, as a table of
		// nodes lists them (not the legacy head tree, which lists a node's
		// after its subtree's): index w is written after id w/2 is read.
		// Made anew, they were 1.4 MB more at many-nodes' peak.
		inPlace := !p.legacy
		if inPlace {
			kids = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(p.children))), 2*cap(p.children))[:0]
		} else {
			kids = make([]int32, 0, len(p.children))
		}
		for i := range p.nodes {
			kidStart[i] = int32(len(kids))
			r := p.nodes[i].children
			if inPlace && r[0] < r[1] && 2*int(r[0]) < len(kids) {
				return fmt.Errorf("internal error: %s's children precede the last node's", p.nodePath(i))
			}
			for j, c := range p.children[r[0]:r[1]] {
				k, ok := ids.get(c)
				if !ok {
					if p.lenient {
						undefined++
						continue
					}
					return p.failf(p.nodes[i].off, fmt.Sprintf("%s.children[%d]", p.nodePath(i), j), "unknown node id %d", c)
				}
				kids = append(kids, k)
			}
		}
		kidStart[n] = int32(len(kids))
		p.children = nil
	} else {
		count := make([]int32, n+1)
		parent := make([]int32, n)
		for i := 1; i < n; i++ {
			parent[i] = -1
			nd := &p.nodes[i]
			if !nd.hasParent {
				continue
			}
			k, ok := ids.get(nd.parent)
			if !ok {
				if p.lenient {
					undefined++ // left without a parent: unreachable, dropped with its subtree
					continue
				}
				return p.failf(nd.off, p.nodePath(i)+".parent", "unknown node id %d", nd.parent)
			}
			parent[i] = k
			count[k]++
		}
		for i := 0; i < n; i++ {
			kidStart[i+1] = kidStart[i] + count[i]
		}
		kids = make([]int32, kidStart[n])
		fill := slices.Clone(kidStart[:n])
		for i := 1; i < n; i++ {
			if k := parent[i]; k >= 0 {
				kids[fill[k]] = int32(i)
				fill[k]++
			}
		}
	}

	// What is left to read of the raw nodes, over their table, whose rest
	// goes back to the system before the tables below are made.
	hitCounts := p.nodes[0].hasHit
	<-framesDone
	nodes := p.compact(frameOf)
	frameOf = nil

	// 2. Depth-first from the root in children order: number nodes in
	// preorder; a second way into a node is an extra call-graph edge, a way
	// back onto the current path is a cycle.
	// Each node's parent goes straight into the profile's node, whose
	// other fields are filled in below (3). Room for this thread's nodes,
	// at least doubling the table when it holds earlier threads': grown to
	// the exact size, a trace of many profiles copied every earlier
	// profile's nodes at each.
	state := make([]uint8, n)
	newID := make([]profile.NodeID, n) // thread-local ids
	order := make([]int32, 0, n)
	prof.Nodes = jsonscan.Room(prof.Nodes, n)
	// The table's fresh pages are faulted in on the idle core while the
	// walk below fills them on this one.
	pages.PopulateAhead(pages.Bytes(prof.Nodes[len(prof.Nodes) : len(prof.Nodes)+n]))
	type frame struct{ node, next int32 }
	stack := []frame{{0, kidStart[0]}}
	state[0] = nodeOnPath
	order = append(order, 0)
	prof.Nodes = append(prof.Nodes, profile.Node{Parent: profile.NoNode})
	extra := 0
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == kidStart[top.node+1] {
			state[top.node] = nodeDone
			stack = stack[:len(stack)-1]
			continue
		}
		c := kids[top.next]
		top.next++
		switch state[c] {
		case nodeOnPath:
			prof.Nodes = prof.Nodes[:nodeBase]
			return p.failf(nodes[top.node].off, p.nodePath(int(top.node)),
				"node cycle: node %d calls node %d, which is one of its callers", nodes[top.node].id, nodes[c].id)
		case nodeDone:
			extra++
		default:
			state[c] = nodeOnPath
			newID[c] = profile.NodeID(len(order))
			order = append(order, c)
			prof.Nodes = append(prof.Nodes, profile.Node{Parent: newID[top.node] + nodeBase})
			stack = append(stack, frame{c, kidStart[c]})
		}
	}
	unreachable := n - len(order)

	// 3 and 4 at once: the nodes and frames here, the samples on another
	// core (neither touches what the other writes).
	var sr sampleResult
	var serr error
	samplesDone := make(chan struct{})
	p.goAhead(samplesDone, &serr, func() { sr, serr = p.appendSamples(prof, ids, state, newID, nodeBase) })
	defer func() { <-samplesDone }() // the early returns below
	// 3. Nodes and frames.
	// The profile's frames are made in preorder, as each first appears.
	// frames holds distinct frames: into a builder that has none yet, they
	// go without being looked up again.
	frameID := make([]profile.FrameID, len(frames.frames)) // +1; 0: not made yet
	newFrame := b.Frame
	if len(prof.Frames) == 0 {
		newFrame = b.NewFrame
	}
	for i, raw := range order {
		rn := &nodes[raw]
		k := rn.frame
		fid := frameID[k] - 1
		if fid < 0 {
			f := &frames.frames[k]
			fid = newFrame(profile.Frame{Name: f.name, URL: f.url, ScriptID: f.script, Line: f.line, Column: f.col, CodeType: f.codeType})
			frameID[k] = fid + 1
		}
		nd := &prof.Nodes[nodeBase+profile.NodeID(i)]
		nd.Frame, nd.InputID, nd.HitCount, nd.DeoptReason = fid, rn.id, rn.hit, rn.deopt
	}
	p.appendLineTicks(prof, state, newID, nodeBase)
	th.Nodes = profile.Range{Start: int32(nodeBase), End: int32(nodeBase) + int32(len(order))}
	th.Shape = profile.ShapeTree
	if extra > 0 {
		// A call graph keeps every caller→callee edge, in input order, so
		// that tree-expanding consumers (DevTools) can be reproduced.
		th.Shape = profile.ShapeCallGraph
		for i, raw := range order {
			for _, c := range kids[kidStart[raw]:kidStart[raw+1]] {
				prof.Edges = append(prof.Edges, profile.Edge{From: nodeBase + profile.NodeID(i), To: nodeBase + newID[c]})
			}
		}
	}
	if th.Shape == profile.ShapeCallGraph || b.P.Frames[prof.Nodes[nodeBase].Frame].Name == b.Intern("(host)") {
		prof.Format = "xs"
	}

	<-samplesDone
	if serr != nil {
		return serr
	}
	th.Start, th.End, th.HitCounts, th.LastSampleEnd = sr.start, sr.end, hitCounts, sr.lastSampleEnd
	dropped, backwards, unknown, ns := sr.dropped, sr.backwards, sr.unknown, sr.n
	sampleBase, s := sr.base, &prof.Samples
	th.Samples = profile.Range{Start: int32(sampleBase), End: int32(s.Node.Len())}
	tid := profile.ThreadID(len(prof.Threads))
	prof.Threads = append(prof.Threads, th)
	// By thread, then id: this thread's come after those of the threads
	// before it, so only they are sorted (sorting them all again at each
	// thread was quadratic in a trace of many profiles).
	ownIDs := len(prof.TraceIDs)
	for traceID, nodeID := range p.traceIDs {
		if k, ok := ids.get(nodeID); ok && state[k] != nodeUnseen {
			prof.TraceIDs = append(prof.TraceIDs, profile.TraceID{Thread: tid, ID: traceID, Node: nodeBase + newID[k]})
		}
	}
	slices.SortFunc(prof.TraceIDs[ownIDs:], func(a, b profile.TraceID) int { return cmpInt64(a.ID, b.ID) })

	// 5. Hit counts: DevTools recomputes them from samples when absent.
	made := prof.Nodes[nodeBase:]
	if !hitCounts {
		for i := range made {
			made[i].HitCount = 0
		}
		for _, nd := range s.Node.Slice(sampleBase, s.Node.Len()).All() {
			prof.Nodes[nd].HitCount++
		}
	} else if ns > 0 {
		var sum int64
		for _, nd := range made {
			sum += nd.HitCount
		}
		if sum != int64(ns) {
			prof.Diagnostics.Add("hitcount-mismatch", 1, "the nodes' hitCounts add up to %d but there are %d samples; times come from the samples", sum, ns)
		}
	}
	prof.Diagnostics.Add("undefined-node-link", undefined, "%d parent or children links named nodes no chunk of the profile defines (chunks without args.data?); "+
		"the nodes below them are unreachable", undefined)
	prof.Diagnostics.Add("unreachable-node", int64(unreachable), "%d nodes are not reachable from the root and were dropped", unreachable)
	prof.Diagnostics.Add("sample-unreachable-node", dropped, "%d samples named unreachable nodes and were dropped", dropped)
	prof.Diagnostics.Add("sample-unknown-node", unknown, "%d samples named nodes the profile never defined (a lost chunk?) and were dropped", unknown)
	prof.Diagnostics.Add("negative-delta", backwards, "%d samples were out of time order (negative timeDeltas) and were sorted, as DevTools does", backwards)
	if th.Shape == profile.ShapeCallGraph {
		prof.Diagnostics.Add("call-graph", int64(extra), "call graph: one node per function, as XS writes; %d calls come from a second or further caller", extra)
	}
	return nil
}

// compactNode is what appendThread reads of a raw node once the nodes'
// frames are found and their children listed.
type compactNode struct {
	id, off, hit int64
	deopt        profile.StringID
	frame        int32 // index in the frame table
}

// compact writes each raw node's compactNode over the raw table (node i's
// 32 bytes at 32·i, after its 72 bytes at 72·i are read), gives the pages
// of the rest back to the system, and lets go of the raw nodes. On the
// many-nodes shape the rest is 14 MB, resident until the table was
// dropped with the parser, while the profile's tables were made.
func (p *parser) compact(frameOf []int32) []compactNode {
	raw := p.nodes
	p.nodes = nil
	const size = int(unsafe.Sizeof(compactNode{}))
	whole := pages.Bytes(raw[:cap(raw)])
	nodes := unsafe.Slice((*compactNode)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw))
	for i := range raw {
		rn := raw[i] // a copy: node 0's bytes are written over
		nodes[i] = compactNode{rn.id, rn.off, rn.hit, rn.deopt, frameOf[i]}
	}
	discard(whole[len(raw)*size:])
	return nodes
}

// discard is pages.Discard (a variable for tests, which read without it).
var discard = pages.Discard

// appendLineTicks adds the positionTicks entries of the nodes reached to
// prof.LineTicks, renumbered, in input order: a node's entries together
// and as written, the nodes in any order (readers of LineTicks group them
// by node). The first thread's are written over the parser's table, which
// the profile keeps: copied in preorder, the entries were a second table
// at the reading's peak (3.6 MB on the many-nodes shape).
func (p *parser) appendLineTicks(prof *profile.Profile, state []uint8, newID []profile.NodeID, nodeBase profile.NodeID) {
	ticks := p.ticks
	p.ticks = nil
	if len(ticks) == 0 {
		return
	}
	if len(prof.LineTicks) == 0 {
		prof.LineTicks = ticks[:0] // entry k goes to index ≤ k
	} else {
		prof.LineTicks = jsonscan.Room(prof.LineTicks, len(ticks))
	}
	for _, lt := range ticks {
		if r := lt.Node; r >= 0 && state[r] != nodeUnseen { // those of unreachable nodes are left out
			lt.Node = nodeBase + newID[r]
			prof.LineTicks = append(prof.LineTicks, lt)
		}
	}
}

// A node's state in appendThread's depth-first walk.
const (
	nodeUnseen = iota // not reached (yet)
	nodeOnPath
	nodeDone
)

// sampleResult is what appendSamples found.
type sampleResult struct {
	n                           int // samples in the input
	base                        int // the thread's first sample in the profile
	start, end, lastSampleEnd   profile.Time
	dropped, backwards, unknown int64
}

// growColumn returns a sample column with room for n more: c, or zeros for
// the base samples before it when c is nil.
func growColumn(c []int32, base, n int) []int32 {
	if c == nil {
		return make([]int32, base, base+n)
	}
	return jsonscan.Grow(c, n)
}

// appendSamples appends the thread's samples to the profile's, their nodes
// renumbered (newID, nodeBase; state tells the unreachable ones), with
// their times. It touches only the profile's samples, so that the nodes
// and frames can be appended meanwhile.
func (p *parser) appendSamples(prof *profile.Profile, ids *idIndex, state []uint8, newID []profile.NodeID, nodeBase profile.NodeID) (sr sampleResult, err error) {
	ns := p.joinedSamples()
	sr.n = ns
	s := &prof.Samples
	// A column narrow so far stays so when every node of the thread fits.
	narrow := s.Node.Narrow() && int(nodeBase)+len(newID) <= profile.NarrowLimit
	// The samples are mapSamples16's when the first thread's ids, read into
	// 16 bits, are written over with its nodes (the first case of the
	// switch below), and its times over its deltas (inPlace), without
	// lines, the ids in a dense index.
	fast := mapSamples16On && s.Node.Cap() == 0 && p.samples16 != nil && narrow && s.Time.Cap() == 0 && ns > 0 &&
		p.lines == nil && s.Line == nil && ids.m == nil
	// Then they are mapped on another core while this one makes their
	// times from the deltas: the two touch different arrays, and each is
	// a pass over every sample (docs/performance.md §5q).
	mapping := -1 // the samples mapSamples16 took, once it is done
	var mapped sync.WaitGroup
	defer mapped.Wait() // the early returns below
	if fast && ns >= concurrentMapSamples {
		ids16 := p.samples16[:ns]
		mapped.Go(func() { mapping = mapSamples16(ids16, ids, state, newID, nodeBase) })
	}
	var times profile.Times
	switch {
	case p.legacy && p.timestamps != nil:
		if len(p.timestamps) != ns && len(p.timestamps) != ns+1 {
			return sr, p.failf(p.timestampsOff, "timestamps", "%d timestamps for %d samples", len(p.timestamps), ns)
		}
		times = profile.WideTimes(unsafe.Slice((*profile.Time)(unsafe.SliceData(p.timestamps)), len(p.timestamps)))
	case p.legacy && (math.Abs(p.startF) > maxTime/2e9 || math.Abs(p.endF) > maxTime/2e9):
		// Seconds; ±2^61 ns keeps the spread of samples below inside an int64.
		off, path, sec := p.startOff, "startTime", p.startF
		if math.Abs(p.endF) > maxTime/2e9 {
			off, path, sec = p.endOff, "endTime", p.endF
		}
		return sr, p.failf(off, path, "time %g s out of range", sec)
	case p.legacy:
		// No timestamps: DevTools spreads the samples evenly over the profile.
		if ns > 0 {
			start, span := p.legacyTime(p.startF), float64(p.legacyTime(p.endF)-p.legacyTime(p.startF))
			times.Grow(ns + 1)
			for i := range ns + 1 {
				times.Append(start + profile.Time(math.Round(float64(i)*span/float64(ns))))
			}
		}
	default:
		if p.hasSamples && !p.hasDeltas && ns > 0 {
			return sr, p.failf(p.samplesOff, p.prefix+"samples", "%d samples but no timeDeltas", ns)
		}
		if nd := max(len(p.deltas), len(p.deltas32), len(p.deltas16), p.deltasLined.Len()); nd != ns {
			return sr, p.failf(p.deltasOff, p.prefix+"timeDeltas", "%d timeDeltas for %d samples", nd, ns)
		}
		if times, err = p.absoluteTimes(profile.TimeFromMicros(p.startF)); err != nil {
			return sr, err
		}
	}
	sr.start, sr.end = profile.TimeFromMicros(p.startF), profile.TimeFromMicros(p.endF)
	if p.legacy {
		sr.start, sr.end = p.legacyTime(p.startF), p.legacyTime(p.endF)
		if times.Len() == ns+1 && ns > 0 {
			sr.lastSampleEnd = times.At(ns)
		}
	}
	if p.lines != nil && len(p.lines) != ns || p.cols != nil && len(p.cols) != ns {
		return sr, p.failf(p.samplesOff, p.prefix+"lines", "%d lines and %d columns for %d samples", len(p.lines), len(p.cols), ns)
	}
	sampleBase := s.Node.Len()
	sr.base = sampleBase
	ids16, ids32 := p.samples16, p.samples32
	switch {
	case s.Node.Cap() == 0 && ids16 != nil && narrow:
		// The first thread's nodes are written over its ids (sample i
		// goes to index ≤ i), as its times over its deltas.
		s.Node = profile.NarrowNodes(ids16[:0])
		p.samples16 = nil
	case s.Node.Cap() == 0 && ids32 != nil && !narrow:
		s.Node = profile.WideNodes(unsafe.Slice((*profile.NodeID)(unsafe.SliceData(ids32)), len(ids32))[:0])
		p.samples32 = nil
	case s.Node.Cap() == 0 && ids32 != nil:
		// Ids of 1<<16 or more for fewer nodes (ids not numbered from 1):
		// 2-byte nodes over the 4-byte ids, rather than a second array.
		s.Node = profile.NarrowNodes(unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(ids32))), 2*len(ids32))[:0])
		p.samples32 = nil
	default:
		if !narrow {
			s.Node.Widen(ns)
		}
		s.Node.Grow(ns)
	}
	// The first thread's times are written over the array they were read
	// into (sample i goes to index ≤ i): a 27 M-sample profile needs no
	// second array of 110 MB (µs) or 220 MB (ns). The parser lets go of it.
	// Then the times are moved only when a sample before them was dropped.
	inPlace := s.Time.Cap() == 0 && ns > 0
	if inPlace {
		s.Time = times
		p.deltas, p.deltas32, p.deltas16, p.deltasLined, p.timestamps = nil, nil, nil, nil, nil
	} else {
		s.Time.Grow(ns)
	}
	kept, unmoved := 0, -1 // unmoved: in place, the samples before the first dropped one
	var last profile.Time
	// Lines and columns each once an input has them, zeros for the
	// samples of the threads without.
	withLines, withCols := p.lines != nil || s.Line != nil, p.cols != nil || s.Column != nil
	if withLines {
		s.Line = growColumn(s.Line, sampleBase, ns)
	}
	if withCols {
		s.Column = growColumn(s.Column, sampleBase, ns)
	}
	from := 0
	if fast {
		// The common case, a profile of fewer than 65,536 nodes whose
		// samples are all of reachable nodes, in a loop of its own: one
		// table lookup a sample, written over its id. The loop below
		// goes on from the first sample it does not take.
		if mapped.Wait(); mapping >= 0 {
			from = mapping
		} else {
			from = mapSamples16(ids16[:ns], ids, state, newID, nodeBase)
		}
		s.Node = profile.NarrowNodes(ids16[:from])
		kept = from
	}
	for i := from; i < ns; i++ {
		var id int64
		switch {
		case ids16 != nil:
			id = int64(ids16[i])
		case ids32 != nil:
			id = int64(ids32[i])
		default:
			id = p.samples[i]
		}
		k, ok := ids.get(id)
		if !ok {
			if p.lenient {
				sr.unknown++
				continue
			}
			return sr, p.failf(p.elemOffset(p.samplesOff, i), fmt.Sprintf("%ssamples[%d]", p.prefix, i), "unknown node id %d", id)
		}
		if state[k] == nodeUnseen {
			sr.dropped++
			continue
		}
		if !inPlace || kept != i {
			if inPlace && unmoved < 0 {
				unmoved = kept
				if kept > 0 {
					last = s.Time.At(kept - 1)
				}
			}
			t := times.At(i)
			if kept > 0 && t < last {
				sr.backwards++
			}
			if inPlace {
				s.Time.Set(kept, t)
			} else {
				s.Time.Append(t)
			}
			last = t
		}
		kept++
		s.Node.Append(nodeBase + newID[k])
		if withLines {
			var line int32
			if p.lines != nil {
				line = p.lines[i]
			}
			s.Line = append(s.Line, line)
		}
		if withCols {
			var col int32
			if p.cols != nil {
				col = p.cols[i]
			}
			s.Column = append(s.Column, col)
		}
	}
	if inPlace {
		if unmoved < 0 {
			unmoved = kept
		}
		n, _ := s.Time.Decreases(0, unmoved)
		sr.backwards += int64(n)
		s.Time = s.Time.Slice(0, kept)
	}
	if sr.backwards > 0 {
		s.SortByTime(sampleBase)
	}
	return sr, nil
}

// mapSamples16On turns mapSamples16 on (a variable for tests).
var mapSamples16On = true

// concurrentMapSamples is the number of samples from which appendSamples
// maps them on another core while it makes their times (a variable for
// tests).
var concurrentMapSamples = 1 << 18

// mapSamples16 writes over each of the raw node ids ids16 its node of the
// profile (nodeBase + newID of its raw node) while they are all known ids
// of reachable nodes that fit in 16 bits, and returns how many it wrote:
// appendSamples' loop for a narrow profile's samples, which took 7 ns a
// sample (a switch on the ids' form, the index, the reachable test and an
// append for each), in one table lookup (docs/performance.md §5q).
func mapSamples16(ids16 []uint16, ids *idIndex, state []uint8, newID []profile.NodeID, nodeBase profile.NodeID) int {
	// By raw id from ids.min: the node + 1, or 0 for the general loop.
	table := make([]uint16, len(ids.dense))
	for x, k := range ids.dense {
		if k == 0 || state[k-1] == nodeUnseen {
			continue
		}
		if v := nodeBase + newID[k-1]; v < math.MaxUint16 {
			table[x] = uint16(v) + 1
		}
	}
	lo := ids.min
	for i, id := range ids16 {
		u := uint64(int64(id) - lo) // an id below lo wraps to a large one
		if u >= uint64(len(table)) || table[u] == 0 {
			return i
		}
		ids16[i] = table[u] - 1
	}
	return len(ids16)
}

// elemOffset returns the offset of element i of the array at arrOff in the
// document being parsed, or −1 when it is not at hand (trace chunks).
func (p *parser) elemOffset(arrOff int64, i int) int64 {
	if p.s == nil {
		return -1
	}
	s := jsonscan.New(p.s.Raw(0, int64(p.s.Len())))
	s.SetOffset(arrOff)
	if s.BeginArray() != nil {
		return arrOff
	}
	for k := 0; ; k++ {
		if ok, err := s.NextElem(k == 0); err != nil || !ok {
			return arrOff
		}
		s.Peek()
		if k == i {
			return s.Offset()
		}
		if s.Skip() != nil {
			return arrOff
		}
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// legacyTime converts a legacy start/end time in seconds.
func (p *parser) legacyTime(sec float64) profile.Time { return profile.Time(math.Round(sec * 1e9)) }

// fixLegacyIDs gives id-less legacy nodes fresh ids and turns the children
// index references of parseHeadNode into ids.
func (p *parser) fixLegacyIDs() {
	var next int64
	for _, n := range p.nodes {
		if n.hasID {
			next = max(next, n.id+1)
		}
	}
	for i := range p.nodes {
		if !p.nodes[i].hasID {
			p.nodes[i].id, p.nodes[i].hasID = next, true
			next++
		}
	}
	for i, c := range p.children {
		p.children[i] = p.nodes[-1-c].id
	}
}

// absoluteTimes returns the samples' times, made from the time deltas in
// place: a compact column over the int16 or int32 µs deltas were read into
// when every delta is a whole µs (profile.Times), else ns over the int64
// ones. A time beyond ±maxTime is an error, at its delta.
func (p *parser) absoluteTimes(base profile.Time) (profile.Times, error) {
	bad := func(i int, t int64) error {
		return p.failf(p.elemOffset(p.deltasOff, i), fmt.Sprintf("%stimeDeltas[%d]", p.prefix, i), "time %d ns out of range", t)
	}
	if b := p.deltasLined; b != nil {
		p.deltasLined = nil
		if times, ok := b.Times(base, maxTime); ok {
			return times, nil
		}
		// A time beyond range: from the deltas again, which tell which.
		// Counted from 0 the times are all in range (at most 2^52 µs
		// from 0, LineBuilder.Add: 4.5·10^18 ns, maxTime 4.6·10^18).
		from0, ok := b.Times(0, maxTime)
		if !ok {
			return profile.Times{}, p.failf(p.deltasOff, p.prefix+"timeDeltas", "the time deltas could not be read back")
		}
		p.deltas32 = make([]int32, from0.Len())
		prev := profile.Time(0)
		for i := range p.deltas32 {
			t := from0.At(i)
			p.deltas32[i] = int32((t - prev) / 1000)
			prev = t
		}
	}
	if d16 := p.deltas16; d16 != nil {
		if times, ok := profile.TimesFromDeltas16(base, d16, maxTime); ok {
			return times, nil
		}
		// A coarse sampling, or a time beyond range: in 4 bytes.
		p.deltas32 = make([]int32, len(d16))
		for i, d := range d16 {
			p.deltas32[i] = int32(d)
		}
		p.deltas16 = nil
	}
	t := int64(base)
	if d32 := p.deltas32; d32 != nil {
		times, i := profile.TimesFromDeltas(base, d32, maxTime)
		if i >= 0 {
			// The time beyond range, again: delta i is still in d32.
			if i > 0 {
				t = int64(times.At(i - 1))
			}
			return times, bad(i, t+int64(d32[i])*1000)
		}
		return times, nil
	}
	for i, d := range p.deltas {
		t += d // |t|, |d| ≤ maxTime: no overflow
		if t > maxTime || t < -maxTime {
			return profile.Times{}, bad(i, t)
		}
		p.deltas[i] = t
	}
	return profile.WideTimes(unsafe.Slice((*profile.Time)(unsafe.SliceData(p.deltas)), len(p.deltas))), nil
}

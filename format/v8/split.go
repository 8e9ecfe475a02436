package v8

import (
	"errors"
	"sync/atomic"
	"unsafe"

	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// The node table on two cores.
//
// A profile of many nodes (a type-checker's, a large app's) spends most of
// its reading in the node table, and its samples are too few to keep the
// second core busy. So a large table is read in two halves: a guess at a
// node boundary near the middle of the table (nodeBoundary) and a parser
// of its own that reads from there to the end of the
// table with its own string table. The main parser takes that half only if
// it reaches a node that starts at that very offset and the half was read
// without error; otherwise the half is dropped and the table read in
// order, with the same result and errors. The half's strings are interned
// into the profile's in the order they first appear in it, so the
// profile's string table is the one an in-order read makes
// (TestSplitNodesSameResult).

// splitNodesBytes is the size of node table from which it is read in two
// halves (a variable for tests).
var splitNodesBytes = 8 << 20

// splitTaken counts the halves the parser took (for tests).
var splitTaken atomic.Int64

// nodesHalf is the second half of a node table, read ahead.
type nodesHalf struct {
	at   int64   // offset of its first node's '{'
	q    *parser // its parser: nodes, children, ticks and strings of its own
	end  int64   // offset after the table's ']'
	err  error
	stop atomic.Bool // the main parser no longer wants it
	// The whole tables the halves share, when they do (splitNodes).
	nodesAll []rawNode
	kidsAll  []int64
	ticksAll []profile.LineTick
	done     chan struct{}
}

// splitPoint returns where the node table [start, limit) is split to be
// read in two halves: the offset of a node boundary near its middle, or −1
// when it is read in order (too small, a trace chunk's or a legacy table,
// no boundary found).
func (p *parser) splitPoint(data []byte, start, limit int64) int64 {
	if p.prefix != "" || p.lenient || p.legacy || limit-start < int64(splitNodesBytes) {
		return -1
	}
	return nodeBoundary(data[:limit], start+(limit-start)/2)
}

// splitNodes starts reading the second half of the node table, from at
// (splitPoint; nothing when −1) to the end of the table. c1 and c2 are
// what the halves are expected to hold at most (countBraces).
func (p *parser) splitNodes(data []byte, at int64, c1, c2 tableCounts) *nodesHalf {
	if at < 0 {
		return nil
	}
	h := &nodesHalf{at: at, done: make(chan struct{})}
	s := jsonscan.New(data)
	s.MaxDepth = p.s.MaxDepth
	s.Release = p.release
	s.SetOffset(h.at)
	s.SetReleaseFrom(h.at)
	q := &parser{s: s, b: profile.NewBuilder(""), limits: p.limits, release: p.release}
	// The halves share the tables presized for the whole (parseNodes):
	// the first gets as many nodes as its '{' suggest, the second the
	// rest, and take moves the second's down behind the first's. A half
	// that outgrows its share gets a table of its own (append), which
	// take copies instead.
	first, second := c1.braces/2, c2.braces/2
	if first < cap(p.nodes) && first < cap(p.children) {
		h.nodesAll, h.kidsAll = p.nodes[:0], p.children[:0]
		p.nodes, q.nodes = p.nodes[:0:first], p.nodes[first:first]
		p.children, q.children = p.children[:0:first], p.children[first:first]
	} else if second > 0 {
		q.nodes = make([]rawNode, 0, min(second, p.limits.MaxNodes))
		q.children = make([]int64, 0, min(second, p.limits.MaxNodes))
	}
	// The positionTicks entries alike.
	if len(p.ticks) == 0 && c1.ticks < cap(p.ticks) {
		h.ticksAll = p.ticks
		p.ticks, q.ticks = p.ticks[:0:c1.ticks], p.ticks[c1.ticks:c1.ticks]
	} else if c2.ticks > 0 {
		q.ticks = make([]profile.LineTick, 0, c2.ticks)
	}
	h.q = q
	p.goAhead(h.done, &h.err, func() {
		h.err = q.readHalf(&h.stop)
		h.end = s.Offset()
	})
	if t := p.tail; t != nil && t.later {
		// The arrays left to be read later: by this core once its half is
		// read, if the main parser has not taken them first.
		go func() {
			<-h.done
			t.runLater()
		}()
	}
	return h
}

// nodesLimit returns where the node table that begins at start ends at the
// latest: before the arrays read ahead (readTailArrays), when they were
// found after it, else at the end of the input.
func (p *parser) nodesLimit(start int64) int64 {
	limit := int64(p.s.Len())
	if t := p.tail; t != nil {
		for _, a := range []*tailArray{&t.samples, &t.deltas} {
			if a.at > start {
				limit = min(limit, a.at)
			}
		}
	}
	return limit
}

// nodeBoundary returns the offset of the first '{' from i that looks like
// the start of a node in the table: after '}' and ',' (white space
// between), and followed by the key "id" or "callFrame", the first key
// of a node as V8 and DevTools write it; −1 if there is none within
// 1 MB. In valid JSON those bytes cannot be inside a string, whose quotes
// are escaped; the parser checks the guess anyway.
func nodeBoundary(data []byte, i int64) int64 {
	return int64(jsonscan.ElementStart(data, int(i), "id", "callFrame"))
}

// errHalfDropped ends a half the main parser no longer wants, or one too
// large to take.
var errHalfDropped = errors.New("the half of the node table was dropped")

// readHalf reads nodes from the scanner's offset to the end of the table.
func (q *parser) readHalf(stop *atomic.Bool) error {
	s := q.s
	for first := true; ; first = false {
		if !first {
			ok, err := s.NextElem(false)
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
		}
		if len(q.nodes)%1024 == 0 && stop.Load() {
			return errHalfDropped
		}
		if len(q.nodes) >= q.limits.MaxNodes {
			return errHalfDropped
		}
		if err := q.parseNode(); err != nil {
			return err
		}
		q.noteOrder()
	}
}

// take adds the half to p's tables and moves p's scanner past the table,
// when the node p is at starts where the half does; ok is false when p
// must go on reading in order.
func (h *nodesHalf) take(p *parser) (ok bool) {
	s := p.s
	if h == nil || s.Peek() != '{' || s.Offset() != h.at {
		return false
	}
	done := h.done
	if framesAheadAll {
		done = nil // never closed: every frame found first
	}
	p.framesAhead(done, cap(h.nodesAll))
	select {
	case <-h.done:
	default:
		p.tail.runLater() // still waiting: the arrays left to be read later
	}
	<-h.done
	q := h.q
	if h.err != nil || q.heapOff > 0 || len(p.nodes)+len(q.nodes) > p.limits.MaxNodes {
		return false
	}
	ids := make([]profile.StringID, len(q.b.P.Strings))
	for i, str := range q.b.P.Strings[1:] {
		ids[i+1] = p.b.Intern(str)
	}
	kids, ticks, base := int32(len(p.children)), len(p.ticks), len(p.nodes)
	if p.inOrder == base && q.inOrder == len(q.nodes) && (base == 0 || len(q.nodes) == 0 || q.nodes[0].id == p.nodes[0].id+int64(base)) {
		p.inOrder += q.inOrder
	}
	p.nodes = join(p.nodes, h.nodesAll, q.nodes)
	p.children = join(p.children, h.kidsAll, q.children)
	for i := base; i < len(p.nodes); i++ {
		n := &p.nodes[i]
		n.name, n.url, n.script = ids[n.name], ids[n.url], ids[n.script]
		n.codeType, n.deopt = ids[n.codeType], ids[n.deopt]
		n.children[0] += kids
		n.children[1] += kids
	}
	p.ticks = join(p.ticks, h.ticksAll, q.ticks)
	for i := ticks; i < len(p.ticks); i++ {
		if p.ticks[i].Node >= 0 {
			p.ticks[i].Node += profile.NodeID(base)
		}
	}
	h.q, h.nodesAll, h.kidsAll, h.ticksAll = nil, nil, nil, nil
	s.SetOffset(h.end)
	s.SetReleaseFrom(h.end)
	splitTaken.Add(1)
	return true
}

// framesAhead finds the call frames of the nodes read so far, a stretch
// at a time, until they are all found or done is closed: what the core
// that read the first half of the node table does while the second is
// still read (the halves end some milliseconds apart, either first, from
// run to run), which appendThread would otherwise do on the other core
// after the join, as it still does for the rest. n is the number of nodes
// to make room for.
func (p *parser) framesAhead(done <-chan struct{}, n int) {
	const stretch = 2048
	if p.frameOf == nil {
		p.frameOf = make([]int32, 0, max(n, len(p.nodes)))
	}
	for k := len(p.frameOf); k < len(p.nodes); k = len(p.frameOf) {
		select {
		case <-done:
			return
		default:
		}
		for i := k; i < min(k+stretch, len(p.nodes)); i++ {
			p.frameOf = append(p.frameOf, p.frames.index(p.nodes[i].frame()))
		}
	}
}

// framesAheadAll makes take find the frames of every node read before
// the second half, however soon that half is done (for tests: whether
// framesAhead has run, and how far, depends on the halves' timing).
var framesAheadAll bool

// join returns a followed by b. When a still lies at the start of full
// (its share of a table shared with b, see splitNodes), b is moved down
// behind a in full, which may overlap b: append copies as memmove does.
func join[T any](a, full, b []T) []T {
	if full != nil && unsafe.SliceData(a) == unsafe.SliceData(full) && len(a)+len(b) <= cap(full) {
		return append(full[:len(a)], b...)
	}
	return append(a, b...)
}

// wait waits for the half's goroutine, so that none outlives the parse.
func (h *nodesHalf) wait() {
	if h != nil {
		h.stop.Store(true)
		<-h.done
	}
}

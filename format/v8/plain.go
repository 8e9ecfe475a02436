package v8

import (
	"math"

	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// Nodes as V8 writes them.
//
// V8 and DevTools write every node of a .cpuprofile the same way, its
// members in the same order, without white space or escapes:
//
//	{"id":5,"callFrame":{"functionName":"f","scriptId":"20","url":"file:///a.js","lineNumber":0,"columnNumber":0},"hitCount":6,"children":[6,8]}
//
// then positionTicks or deoptReason when there are. readPlainMembers reads
// the first four members by comparing bytes with what they are in that
// form, and each member is taken whole or not at all: from the first one
// that is written otherwise (another key, order or value form, white
// space, an escape in a string), parseNode's loop reads the rest as it
// reads any node. So the nodes, strings and errors are the same
// (TestPlainNodes), and a node that is not written so costs a comparison
// of a few bytes more. On the many-nodes shape the member-by-member loop
// (a key scanned as a string and switched on, white space skipped before
// every token, a call per value) was most of the node table's reading.
// readPlainTick reads a positionTicks entry ({"line":5,"ticks":2}) so.

// plainNodes turns readPlainMembers on (a variable for tests, which read
// without it).
var plainNodes = true

// plainCounts, if not nil, is given the call frames a reading's parser
// read with readPlainCallFrame and those it did not (for tests).
var plainCounts func(hits, misses int)

// readPlainMembers reads the members of node n written as V8 writes them,
// from the scanner's position just after the node's '{', and reports
// whether it read any: parseNode's loop reads the rest, from where they
// stop.
func (p *parser) readPlainMembers(n *rawNode) bool {
	s := p.s
	d := s.Raw(0, int64(s.Len()))
	i := int(s.Offset())
	const id = `"id":`
	if !hasAt(d, i, id) {
		return false
	}
	v, i, ok := jsonscan.PlainInt(d, i+len(id))
	if !ok {
		return false
	}
	n.id, n.hasID = v, true
	s.SetOffset(int64(i))
	if p.plainFrames() {
		if i, ok = p.readPlainCallFrame(n, d, i); !ok {
			p.plainMisses++
			return true
		}
		p.plainHits++
		s.SetOffset(int64(i))
	}
	const hitCount = `,"hitCount":`
	if !hasAt(d, i, hitCount) {
		return true
	}
	if v, i, ok = jsonscan.PlainInt(d, i+len(hitCount)); !ok {
		return true
	}
	n.hit, n.hasHit = v, true
	s.SetOffset(int64(i))
	const children = `,"children":[`
	if !hasAt(d, i, children) {
		return true
	}
	start := len(p.children)
	j := i + len(children)
	if j < len(d) && d[j] == ']' {
		j++
	} else {
		for {
			if v, j, ok = jsonscan.PlainInt(d, j); !ok {
				p.children = p.children[:start]
				return true
			}
			p.children = append(p.children, v)
			if d[j] == ']' { // PlainInt leaves j < len(d)
				j++
				break
			}
			if d[j] != ',' {
				p.children = p.children[:start]
				return true
			}
			j++
		}
	}
	n.hasChildren = true
	n.children = [2]int32{int32(start), int32(len(p.children))}
	s.SetOffset(int64(j))
	return true
}

// plainFrames reports whether readPlainCallFrame is worth trying: not
// once most of a thousand call frames have been written otherwise (with
// a codeType, say), each then compared and read twice.
func (p *parser) plainFrames() bool {
	return p.plainMisses < 1000 || p.plainMisses < p.plainHits
}

// readPlainCallFrame reads the callFrame member at d[i] when it is
// written as V8 writes it: the offset after it, or ok false having read
// nothing. Its strings are interned as parseCallFrame interns them, in
// the same order.
func (p *parser) readPlainCallFrame(n *rawNode, d []byte, i int) (int, bool) {
	const (
		callFrame = `,"callFrame":{"functionName":"`
		scriptID  = `","scriptId":"`
		url       = `","url":"`
		line      = `","lineNumber":`
		column    = `,"columnNumber":`
	)
	if !hasAt(d, i, callFrame) {
		return i, false
	}
	a := i + len(callFrame)
	b := jsonscan.PlainString(d, a)
	if b < 0 || !hasAt(d, b, scriptID) {
		return i, false
	}
	name := d[a:b]
	a = b + len(scriptID)
	if b = jsonscan.PlainString(d, a); b < 0 || !hasAt(d, b, url) {
		return i, false
	}
	script := d[a:b]
	a = b + len(url)
	if b = jsonscan.PlainString(d, a); b < 0 || !hasAt(d, b, line) {
		return i, false
	}
	u := d[a:b]
	ln, j, ok := jsonscan.PlainInt(d, b+len(line))
	if !ok || ln < math.MinInt32 || ln > math.MaxInt32 || !hasAt(d, j, column) {
		return i, false
	}
	col, j, ok := jsonscan.PlainInt(d, j+len(column))
	if !ok || col < math.MinInt32 || col > math.MaxInt32 || d[j] != '}' {
		return i, false
	}
	n.name = p.intern(name)
	n.script = p.internScript(script)
	n.url = p.internURL(u, n.script)
	n.line, n.col = int32(ln), int32(col)
	return j + 1, true
}

// readPlainTick reads the positionTicks entry at the scanner's position
// into lt when it is written as V8 writes it ({"line":5,"ticks":2}, the
// line within int32), and reports whether it did; otherwise it reads
// nothing.
func readPlainTick(s *jsonscan.Scanner, lt *profile.LineTick) bool {
	const line, ticks = `{"line":`, `,"ticks":`
	d := s.Raw(0, int64(s.Len()))
	i := int(s.Offset())
	if !hasAt(d, i, line) {
		return false
	}
	ln, i, ok := jsonscan.PlainInt(d, i+len(line))
	if !ok || ln < 0 || ln > math.MaxInt32 || !hasAt(d, i, ticks) {
		return false
	}
	t, i, ok := jsonscan.PlainInt(d, i+len(ticks))
	if !ok || d[i] != '}' {
		return false
	}
	lt.Line, lt.Ticks = int32(ln), t
	s.SetOffset(int64(i + 1))
	return true
}

// hasAt reports whether d holds lit at offset i.
func hasAt(d []byte, i int, lit string) bool {
	return i+len(lit) <= len(d) && string(d[i:i+len(lit)]) == lit
}

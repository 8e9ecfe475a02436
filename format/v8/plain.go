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
// readPlainTick reads a positionTicks entry ({"line":5,"ticks":2}) so,
// and readSavedMembers the nodes of a trace's ProfileChunk events, as
// Chrome writes them and DevTools saves them.

// plainNodes turns readPlainMembers on (a variable for tests, which read
// without it).
var plainNodes = true

// plainCounts, if not nil, is given the call frames a reading's parser
// read with readPlainCallFrame or readSavedCallFrame and those it did not
// (for tests).
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
		return p.readSavedMembers(n, d, i)
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
	if v, i, ok = intAt(d, i, `,"hitCount":`); !ok {
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
	name, b, ok := stringAt(d, i, callFrame)
	if !ok {
		return i, false
	}
	script, b, ok := stringAt(d, b, scriptID)
	if !ok {
		return i, false
	}
	u, b, ok := stringAt(d, b, url)
	if !ok {
		return i, false
	}
	ln, b, ok := int32At(d, b, line)
	if !ok {
		return i, false
	}
	col, j, ok := int32At(d, b, column)
	if !ok || d[j] != '}' {
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
	ln, i, ok := int32At(d, i, line)
	if !ok || ln < 0 {
		return false
	}
	t, i, ok := intAt(d, i, ticks)
	if !ok || d[i] != '}' {
		return false
	}
	lt.Line, lt.Ticks = int32(ln), t
	s.SetOffset(int64(i + 1))
	return true
}

// readSavedMembers is readPlainMembers for the form of the nodes of a
// trace's ProfileChunk events, which DevTools also saves as a .cpuprofile
// (large-profile.cpuprofile: 131 k nodes): members sorted by name, the
// script id a number, no hit counts, parent links,
//
//	{"callFrame":{"codeType":"JS","columnNumber":5,"functionName":"f","lineNumber":4,"scriptId":3,"url":"a.js"},"id":2,"parent":1}
//
// with no line and column for the meta nodes ((root), (program)…).
func (p *parser) readSavedMembers(n *rawNode, d []byte, i int) bool {
	s := p.s
	if !p.plainFrames() {
		return false
	}
	i, ok := p.readSavedCallFrame(n, d, i)
	if !ok {
		p.plainMisses++
		return false
	}
	p.plainHits++
	s.SetOffset(int64(i))
	v, i, ok := intAt(d, i, `,"id":`)
	if !ok {
		return true
	}
	n.id, n.hasID = v, true
	s.SetOffset(int64(i))
	if v, i, ok = intAt(d, i, `,"parent":`); !ok {
		return true
	}
	n.parent, n.hasParent = v, true
	s.SetOffset(int64(i))
	return true
}

// readSavedCallFrame is readPlainCallFrame for the callFrame member of
// readSavedMembers' form, the node's first, at d[i].
func (p *parser) readSavedCallFrame(n *rawNode, d []byte, i int) (int, bool) {
	const (
		callFrame = `"callFrame":{"codeType":"`
		column    = `","columnNumber":`
		nameAfter = `,"functionName":"`
		name      = `","functionName":"`
		line      = `","lineNumber":`
		script    = `,"scriptId":`
		scriptNL  = `","scriptId":` // after a name, with no line
		url       = `,"url":"`
	)
	codeType, b, ok := stringAt(d, i, callFrame)
	if !ok {
		return i, false
	}
	ln, col := int64(-1), int64(-1)
	var fn []byte
	if c, j, ok := int32At(d, b, column); ok {
		col = c
		if fn, b, ok = stringAt(d, j, nameAfter); !ok {
			return i, false
		}
		if ln, b, ok = int32At(d, b, line); !ok || !hasAt(d, b, script) {
			return i, false
		}
		b += len(script)
	} else {
		if fn, b, ok = stringAt(d, b, name); !ok || !hasAt(d, b, scriptNL) {
			return i, false
		}
		b += len(scriptNL)
	}
	// The script id: a number as it is written, or a plain string.
	var sc []byte
	if a := b; a < len(d) && d[a] == '"' {
		if b = jsonscan.PlainString(d, a+1); b < 0 {
			return i, false
		}
		sc, b = d[a+1:b], b+1
	} else {
		a := b
		if _, b, ok = jsonscan.PlainInt(d, a); !ok {
			return i, false
		}
		sc = d[a:b]
	}
	// The URL, which a trace's meta nodes go without.
	var u []byte
	hasURL := hasAt(d, b, url)
	switch {
	case hasURL:
		if u, b, ok = stringAt(d, b, url); !ok || !hasAt(d, b, `"}`) {
			return i, false
		}
		b += 2
	case hasAt(d, b, "}"):
		b++
	default:
		return i, false
	}
	// Interned in the order parseCallFrame meets them.
	n.codeType = p.intern(codeType)
	n.name = p.intern(fn)
	n.script = p.internScript(sc)
	if hasURL {
		n.url = p.internURL(u, n.script)
	}
	n.line, n.col = int32(ln), int32(col)
	return b, true
}

// intAt reads lit at d[i] and the plain integer after it (jsonscan.PlainInt):
// the integer and the offset after it, or ok false.
func intAt(d []byte, i int, lit string) (v int64, end int, ok bool) {
	if !hasAt(d, i, lit) {
		return 0, i, false
	}
	return jsonscan.PlainInt(d, i+len(lit))
}

// int32At is intAt for a value within int32 (a line or column).
func int32At(d []byte, i int, lit string) (v int64, end int, ok bool) {
	v, end, ok = intAt(d, i, lit)
	return v, end, ok && v >= math.MinInt32 && v <= math.MaxInt32
}

// stringAt reads lit at d[i], which ends with a string's opening quote,
// and the plain string after it (jsonscan.PlainString): its contents and
// the offset of its closing quote, or ok false.
func stringAt(d []byte, i int, lit string) (str []byte, end int, ok bool) {
	if !hasAt(d, i, lit) {
		return nil, i, false
	}
	a := i + len(lit)
	b := jsonscan.PlainString(d, a)
	if b < 0 {
		return nil, i, false
	}
	return d[a:b], b, true
}

// hasAt reports whether d holds lit at offset i.
func hasAt(d []byte, i int, lit string) bool {
	return i+len(lit) <= len(d) && string(d[i:i+len(lit)]) == lit
}

package speedscope

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// maxTime bounds the times Parse accepts, startValue plus weights included
// (in ns, about 73 years either side of the clock's zero: the Unix epoch
// until 2043), so that analyses can subtract them without overflow.
const maxTime = 1 << 61

// Parse reads a speedscope file, plain or gzip.
func Parse(r io.Reader) (*profile.Profile, error) {
	data, err := input.Read(r, -1, input.Options{})
	if err != nil {
		return nil, err
	}
	return ParseBytes(data)
}

// Sniff reports whether data (decompressed, possibly only its start) looks
// like a speedscope file: a JSON object whose "$schema" member, among the
// members before "shared" and "profiles", names the speedscope schema.
func Sniff(data []byte) bool {
	s := jsonscan.New(data)
	if s.BeginObject() != nil {
		return false
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return false
		}
		switch string(key) {
		case "$schema":
			v, err := s.String()
			return err == nil && string(v) == Schema
		case "shared", "profiles":
			return false
		}
		if s.Skip() != nil {
			return false
		}
	}
}

// ParseBytes reads a decompressed speedscope file held in memory.
//
// Each profile becomes a thread: its stacks become the nodes of a tree under
// a "(root)" node, in the order they first appear, and its samples the
// samples of the thread, on the clock of startValue (converted to ns from
// the profile's unit, exactly for decimal input). A name of the form
// "NAME (pid P, tid T)", as Write gives, sets the thread's name, pid and tid;
// other names are kept whole, with pid 1 and tid the profile's position + 1.
//
//   - Sampled profiles: sample i starts at startValue plus the weights of
//     the samples before it, and its stack is the node of samples[i]. Samples
//     of weight 0 are left out, as speedscope leaves them out.
//   - Evented profiles: a sample starts at each distinct time at which
//     events occur, with the stack the events leave open (the root when none
//     is), and lasts until the next such time. The time from startValue to
//     the first event, and from the last one to endValue, is the root's.
//
// Thread.LastSampleEnd is the end of the last sample (so that analyses need
// not extrapolate it), and Start and End are startValue and endValue (0 and
// the end of the last sample when absent). A frame's file becomes its URL,
// its line and column 0-based values (−1 when absent or not positive), and
// the name "(anonymous)", which Write gives to nameless functions, becomes
// "" again; script ids are empty.
//
// A profile with unit "none" weighs sample counts (speedscope shows them as
// plain numbers): each count is read as 1 ns, as folded stacks' weights are,
// and the diagnostic "unitless-weights" counts such profiles. Other units
// than time (bytes) are rejected, as are negative weights,
// times beyond ±2^61 ns, events out of time order and close events that do
// not match the open frame; frames left open at the end are closed at
// endValue and reported in the profile's diagnostics.
func ParseBytes(data []byte) (*profile.Profile, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &profile.ParseError{Offset: 0, Path: "$", Err: profile.ErrEmpty}
	}
	ps := &parser{s: jsonscan.New(data), b: profile.NewBuilder("speedscope"), children: map[childKey]profile.NodeID{}}
	if err := ps.parseFile(); err != nil {
		return nil, err
	}
	p := ps.b.P
	p.Diagnostics.Add("unitless-weights", ps.unitless,
		"%d profiles have unit \"none\": their weights are sample counts, read as 1 ns each (as folded stacks' weights)", ps.unitless)
	if err := p.Validate(); err != nil {
		return nil, &profile.ParseError{Offset: -1, Path: "$", Err: err}
	}
	return p, nil
}

type childKey struct {
	parent profile.NodeID
	frame  profile.FrameID
}

// firstChild is the first child of a node and its frame; node is 0 (a root,
// no one's child) when the node has no child.
type firstChild struct {
	frame profile.FrameID
	node  profile.NodeID
}

type parser struct {
	s          *jsonscan.Scanner
	b          *profile.Builder
	frames     []profile.FrameID // speedscope frame index → FrameID
	haveFrames bool
	rootFrame  profile.FrameID
	// The tree of stacks of all profiles: the first child of each node, by
	// NodeID, and the other children. The nodes of a deep stack have one
	// child each, which the slice finds in order where the map alone (read
	// at random, a cache miss a frame) made a deep stack cost 200 to 250 ms
	// of CPU per MiB. Keys are node IDs of the whole file, so nothing is
	// cleared between profiles (a clear costs in proportion to the map's
	// size, at every profile).
	first    []firstChild
	children map[childKey]profile.NodeID
	unitless int64 // profiles with unit "none"

	// Per profile.
	root      profile.NodeID   // the thread's root
	nodes     []profile.NodeID // a sampled profile's stack of each sample
	weights   [][2]int64       // [start, end) offsets of its weights
	events    []event          // an evented profile's events
	prevIdx   []int64          // frame indexes of the previous sample's stack
	prevNodes []profile.NodeID // and their nodes
}

// event is an evented profile's event.
type event struct {
	open  bool
	index int64 // speedscope frame index
	frame profile.FrameID
	at    [2]int64 // [start, end) offsets of its time
	off   int64    // of the event object, for errors
}

func (ps *parser) fail(off int64, path string, err error) error {
	return jsonscan.Locate(err, off, path)
}

func (ps *parser) failf(off int64, path string, format string, args ...any) error {
	return &profile.ParseError{Offset: off, Path: path, Err: fmt.Errorf(format, args...)}
}

// object reads the members of an object, calling fn for each with the
// scanner on its value (at offset off); fn must consume the value.
func (ps *parser) object(path string, fn func(key string, off int64) error) error {
	s := ps.s
	if err := s.BeginObject(); err != nil {
		return ps.fail(s.Offset(), path, err)
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return ps.fail(s.Offset(), path, err)
		}
		if !ok {
			return nil
		}
		off := s.Offset()
		if err := fn(string(key), off); err != nil {
			return err
		}
	}
}

// member returns the JSON path of member key of the object at parent ("$"
// for the top level): parent.key, or parent["key"] for keys that are not
// identifiers.
func member(parent, key string) string {
	ident := key != ""
	for i, c := range key {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	switch {
	case !ident:
		return parent + "[" + strconv.Quote(key) + "]"
	case parent == "$":
		return key
	}
	return parent + "." + key
}

// skip skips a value, locating errors at path.
func (ps *parser) skip(path string) error {
	if err := ps.s.Skip(); err != nil {
		return ps.fail(ps.s.Offset(), path, err)
	}
	return nil
}

func (ps *parser) str(path string) ([]byte, error) {
	v, err := ps.s.String()
	if err != nil {
		return nil, ps.fail(ps.s.Offset(), path, err)
	}
	return v, nil
}

// parseFile reads the top-level object. Until "$schema" has been seen,
// "shared" and "profiles" are skipped and read afterwards, so that another
// JSON document is reported as unrecognized, not as a broken speedscope
// file; the profiles, which need the frames, likewise wait for "shared".
func (ps *parser) parseFile() error {
	s := ps.s
	sawSchema := false
	sharedOff, profilesOff := int64(-1), int64(-1)
	var sharedLater, profilesLater bool
	err := ps.object("$", func(key string, off int64) error {
		switch key {
		case "$schema":
			v, err := ps.str("$schema")
			if err != nil {
				return err
			}
			if string(v) != Schema {
				return ps.failf(off, "$schema", "%w: $schema is %q, want %q", profile.ErrUnrecognized, v, Schema)
			}
			sawSchema = true
			return nil
		case "shared", "profiles":
			at, later := &sharedOff, &sharedLater
			if key == "profiles" {
				at, later = &profilesOff, &profilesLater
			}
			if *at >= 0 {
				return ps.failf(off, key, "a second %s member", key)
			}
			*at = off
			switch {
			case !sawSchema, key == "profiles" && !ps.haveFrames:
				*later = true
				return ps.skip(key)
			case key == "shared":
				return ps.parseShared()
			}
			return ps.parseProfiles()
		}
		return ps.skip(member("$", key))
	})
	if err != nil {
		return err
	}
	end := s.Offset()
	if !s.AtEnd() {
		return ps.failf(end, "$", "unexpected data after the top-level object")
	}
	if !sawSchema {
		return ps.failf(0, "$", "%w: no $schema member naming %s", profile.ErrUnrecognized, Schema)
	}
	if sharedLater {
		s.SetOffset(sharedOff)
		if err := ps.parseShared(); err != nil {
			return err
		}
	}
	if !ps.haveFrames {
		return ps.failf(0, "$", "missing shared.frames")
	}
	if profilesOff < 0 {
		return ps.failf(0, "$", "missing profiles")
	}
	if profilesLater {
		s.SetOffset(profilesOff)
		if err := ps.parseProfiles(); err != nil {
			return err
		}
	}
	s.SetOffset(end)
	if len(ps.b.P.Threads) == 0 {
		return ps.failf(profilesOff, "profiles", "%w: no profiles", profile.ErrEmpty)
	}
	return nil
}

func (ps *parser) parseShared() error {
	err := ps.object("shared", func(key string, off int64) error {
		if key != "frames" {
			return ps.skip(member("shared", key))
		}
		if ps.haveFrames {
			return ps.failf(off, "shared.frames", "a second frames member")
		}
		ps.haveFrames = true
		return ps.array("shared.frames", func(i int) error { return ps.parseFrame(i) })
	})
	if err == nil && !ps.haveFrames {
		err = ps.failf(ps.s.Offset(), "shared", "missing frames")
	}
	return err
}

// array reads the elements of an array, calling elem for each with the
// scanner on it; elem must consume the element.
func (ps *parser) array(path string, elem func(i int) error) error {
	s := ps.s
	if err := s.BeginArray(); err != nil {
		return ps.fail(s.Offset(), path, err)
	}
	for i := 0; ; i++ {
		ok, err := s.NextElem(i == 0)
		if err != nil {
			return ps.fail(s.Offset(), path, err)
		}
		if !ok {
			return nil
		}
		if err := elem(i); err != nil {
			return err
		}
	}
}

// parseFrame reads frame i of shared.frames.
func (ps *parser) parseFrame(i int) error {
	s, b := ps.s, ps.b
	path := func(k string) string { return fmt.Sprintf("shared.frames[%d]%s", i, k) }
	f := profile.Frame{Line: -1, Column: -1}
	start := s.Offset()
	if err := s.BeginObject(); err != nil {
		return ps.fail(s.Offset(), path(""), err)
	}
	sawName := false
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return ps.fail(s.Offset(), path(""), err)
		}
		if !ok {
			break
		}
		off := s.Offset()
		switch k := string(key); k {
		case "name", "file":
			v, err := s.String()
			if err != nil {
				return ps.fail(s.Offset(), path("."+k), err)
			}
			switch {
			case k == "file":
				f.URL = b.InternBytes(v)
			case string(v) != "(anonymous)":
				f.Name = b.InternBytes(v)
			}
			sawName = sawName || k == "name"
		case "line", "col":
			if s.Null() {
				continue
			}
			v, err := s.Int()
			if err != nil {
				return ps.fail(s.Offset(), path("."+k), err)
			}
			if v > math.MaxInt32 {
				return ps.failf(off, path("."+k), "%d out of range", v)
			}
			pos := int32(max(v, 0)) - 1 // 1-based to 0-based; 0 or less: unknown
			if k == "line" {
				f.Line = pos
			} else {
				f.Column = pos
			}
		default:
			if err := s.Skip(); err != nil {
				return ps.fail(s.Offset(), member(path(""), k), err)
			}
		}
	}
	if !sawName {
		return ps.failf(start, path(""), "missing name")
	}
	ps.frames = append(ps.frames, b.Frame(f))
	return nil
}

func (ps *parser) parseProfiles() error {
	ps.rootFrame = ps.b.Frame(profile.Frame{Name: ps.b.Intern("(root)"), Line: -1, Column: -1})
	return ps.array("profiles", func(i int) error { return ps.parseProfile(i) })
}

// profileHead is what a profile object says besides its stacks.
type profileHead struct {
	typ, name, unit       string
	start, end            [2]int64 // offsets of startValue and endValue; [0] < 0 when absent
	samplesOff, eventsOff int64    // of samples and events read after the type; −1 if none
	weightsOff            int64    // of weights; −1 if none
	hasSamples, hasEvents bool
}

func (ps *parser) parseProfile(i int) error {
	s := ps.s
	p := ps.b.P
	path := func(k string) string { return fmt.Sprintf("profiles[%d]%s", i, k) }
	objOff := s.Offset()
	h := profileHead{start: [2]int64{-1, -1}, end: [2]int64{-1, -1}, samplesOff: -1, eventsOff: -1, weightsOff: -1}
	ps.root = profile.NodeID(len(p.Nodes))
	th := profile.Thread{Nodes: profile.Range{Start: int32(ps.root)}, Samples: profile.Range{Start: int32(p.Samples.Len())}}
	p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NoNode, Frame: ps.rootFrame, InputID: 1})
	ps.first = append(ps.first, firstChild{})
	ps.nodes, ps.weights, ps.events = ps.nodes[:0], ps.weights[:0], ps.events[:0]
	ps.prevIdx, ps.prevNodes = ps.prevIdx[:0], ps.prevNodes[:0]

	err := ps.object(path(""), func(key string, off int64) error {
		switch key {
		case "type", "name", "unit":
			v, err := ps.str(path("." + key))
			if err != nil {
				return err
			}
			switch key {
			case "type":
				if string(v) != "sampled" && string(v) != "evented" {
					return ps.failf(off, path(".type"), "type %q; want sampled or evented", v)
				}
				h.typ = string(v)
			case "name":
				h.name = string(v)
			case "unit":
				if unitDigits(string(v)) < 0 {
					return ps.failf(off, path(".unit"), "unit %q; want nanoseconds, microseconds, milliseconds, seconds or none (sample counts; a CPU profile weighs time)", v)
				}
				h.unit = string(v)
			}
			return nil
		case "startValue", "endValue":
			r, err := ps.number()
			if err != nil {
				return ps.fail(s.Offset(), path("."+key), err)
			}
			if key == "startValue" {
				h.start = r
			} else {
				h.end = r
			}
			return err
		case "samples", "events":
			has, deferOff, want := &h.hasSamples, &h.samplesOff, "sampled"
			if key == "events" {
				has, deferOff, want = &h.hasEvents, &h.eventsOff, "evented"
			}
			if *has {
				return ps.failf(off, path("."+key), "a second %s member", key)
			}
			*has = true
			switch h.typ {
			case "":
				*deferOff = off
			case want:
				return ps.parseStacks(key, i)
			}
			return ps.skip(path("." + key))
		case "weights":
			if h.weightsOff >= 0 {
				return ps.failf(off, path(".weights"), "a second weights member")
			}
			h.weightsOff = off
			return ps.array(path(".weights"), func(j int) error {
				r, err := ps.number()
				if err != nil {
					return ps.fail(s.Offset(), fmt.Sprintf("profiles[%d].weights[%d]", i, j), err)
				}
				ps.weights = append(ps.weights, r)
				return nil
			})
		}
		return ps.skip(member(path(""), key))
	})
	if err != nil {
		return err
	}
	end := s.Offset()
	switch {
	case h.typ == "":
		return ps.failf(objOff, path(""), "missing type")
	case h.unit == "":
		return ps.failf(objOff, path(""), "missing unit")
	case h.typ == "sampled" && (!h.hasSamples || h.weightsOff < 0):
		return ps.failf(objOff, path(""), "a sampled profile needs samples and weights")
	case h.typ == "evented" && !h.hasEvents:
		return ps.failf(objOff, path(""), "an evented profile needs events")
	}
	// Stacks that came before the type.
	key, off := "samples", h.samplesOff
	if h.typ == "evented" {
		key, off = "events", h.eventsOff
	}
	if off >= 0 {
		s.SetOffset(off)
		if err := ps.parseStacks(key, i); err != nil {
			return err
		}
		s.SetOffset(end)
	}

	th.Name, th.PID, th.TID = splitName(h.name, i)
	digits := unitDigits(h.unit)
	if h.unit == "none" {
		ps.unitless++
	}
	if h.start[0] >= 0 {
		if th.Start, err = ps.time(h.start, digits, func() string { return path(".startValue") }); err != nil {
			return err
		}
	}
	hasEnd := h.end[0] >= 0
	if hasEnd {
		if th.End, err = ps.time(h.end, digits, func() string { return path(".endValue") }); err != nil {
			return err
		}
	}
	if h.typ == "sampled" {
		err = ps.sampledTimes(&th, digits, h.weightsOff, i)
	} else {
		err = ps.eventedTimes(&th, digits, h.start[0] >= 0, hasEnd, i)
	}
	if err != nil {
		return err
	}
	if !hasEnd {
		th.End = th.LastSampleEnd
	}
	th.Nodes.End = int32(len(p.Nodes))
	th.Samples.End = int32(p.Samples.Len())
	p.Threads = append(p.Threads, th)
	return nil
}

// parseStacks reads the samples (key "samples") or events ("events") of
// profile i.
func (ps *parser) parseStacks(key string, i int) error {
	if key == "samples" {
		return ps.array(fmt.Sprintf("profiles[%d].samples", i), func(j int) error { return ps.parseSample(i, j) })
	}
	return ps.array(fmt.Sprintf("profiles[%d].events", i), func(j int) error { return ps.parseEvent(i, j) })
}

// parseSample reads a stack of frame indexes, root first, and records its
// node. The nodes of the prefix it shares with the previous stack are
// reused without lookups.
func (ps *parser) parseSample(i, j int) error {
	s := ps.s
	if err := s.BeginArray(); err != nil {
		return ps.fail(s.Offset(), samplePath(i, j, -1), err)
	}
	node := ps.root
	match := true
	k := 0
	for ; ; k++ {
		ok, err := s.NextElem(k == 0)
		if err != nil {
			return ps.fail(s.Offset(), samplePath(i, j, -1), err)
		}
		if !ok {
			break
		}
		off := s.Offset()
		idx, err := s.Int()
		if err != nil {
			return ps.fail(s.Offset(), samplePath(i, j, k), err)
		}
		if idx < 0 || idx >= int64(len(ps.frames)) {
			return ps.frameRange(off, samplePath(i, j, k), idx)
		}
		if match && k < len(ps.prevIdx) && ps.prevIdx[k] == idx {
			node = ps.prevNodes[k]
			continue
		}
		match = false
		node = ps.child(node, ps.frames[idx])
		ps.prevIdx = append(ps.prevIdx[:k], idx)
		ps.prevNodes = append(ps.prevNodes[:k], node)
	}
	ps.prevIdx, ps.prevNodes = ps.prevIdx[:k], ps.prevNodes[:k]
	ps.nodes = append(ps.nodes, node)
	return nil
}

// samplePath returns the path of sample j of profile i, or of its frame k
// when k ≥ 0.
func samplePath(i, j, k int) string {
	if k < 0 {
		return fmt.Sprintf("profiles[%d].samples[%d]", i, j)
	}
	return fmt.Sprintf("profiles[%d].samples[%d][%d]", i, j, k)
}

func (ps *parser) frameRange(off int64, path string, idx int64) error {
	return ps.failf(off, path, "frame %d out of range: shared.frames has %d", idx, len(ps.frames))
}

// parseEvent reads event j of profile i.
func (ps *parser) parseEvent(i, j int) error {
	s := ps.s
	path := func(k string) string { return fmt.Sprintf("profiles[%d].events[%d]%s", i, j, k) }
	ev := event{index: -1, at: [2]int64{-1, -1}, off: s.Offset()}
	var typ byte
	if err := s.BeginObject(); err != nil {
		return ps.fail(s.Offset(), path(""), err)
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return ps.fail(s.Offset(), path(""), err)
		}
		if !ok {
			break
		}
		s.Peek() // skip white space so that off is the value's offset
		off := s.Offset()
		switch string(key) {
		case "type":
			v, err := s.String()
			if err != nil {
				return ps.fail(s.Offset(), path(".type"), err)
			}
			if string(v) != "O" && string(v) != "C" {
				return ps.failf(off, path(".type"), "type %q; want O or C", v)
			}
			typ = v[0]
		case "frame":
			idx, err := s.Int()
			if err != nil {
				return ps.fail(s.Offset(), path(".frame"), err)
			}
			if idx < 0 || idx >= int64(len(ps.frames)) {
				return ps.frameRange(off, path(".frame"), idx)
			}
			ev.index = idx
		case "at":
			if ev.at, err = ps.number(); err != nil {
				return ps.fail(s.Offset(), path(".at"), err)
			}
		default:
			if err := s.Skip(); err != nil {
				return ps.fail(s.Offset(), member(path(""), string(key)), err)
			}
		}
	}
	switch {
	case typ == 0:
		return ps.failf(ev.off, path(""), "missing type")
	case ev.index < 0:
		return ps.failf(ev.off, path(""), "missing frame")
	case ev.at[0] < 0:
		return ps.failf(ev.off, path(""), "missing at")
	}
	ev.open, ev.frame = typ == 'O', ps.frames[ev.index]
	ps.events = append(ps.events, ev)
	return nil
}

// child returns the child of parent for frame f, adding it if needed.
func (ps *parser) child(parent profile.NodeID, f profile.FrameID) profile.NodeID {
	fc := ps.first[parent]
	if fc.node != 0 {
		if fc.frame == f {
			return fc.node
		}
		if n, ok := ps.children[childKey{parent, f}]; ok {
			return n
		}
	}
	p := ps.b.P
	n := profile.NodeID(len(p.Nodes))
	p.Nodes = append(p.Nodes, profile.Node{Parent: parent, Frame: f, InputID: int64(n-ps.root) + 1})
	ps.first = append(ps.first, firstChild{})
	if fc.node == 0 {
		ps.first[parent] = firstChild{frame: f, node: n}
	} else {
		ps.children[childKey{parent, f}] = n
	}
	return n
}

func (ps *parser) addSample(n profile.NodeID, t profile.Time) {
	ps.b.P.Samples.Node.Append(n)
	ps.b.P.Samples.Time.Append(t)
}

// sampledTimes adds the samples of a sampled profile, laid end to end from
// th.Start.
func (ps *parser) sampledTimes(th *profile.Thread, digits int, weightsOff int64, i int) error {
	if len(ps.weights) != len(ps.nodes) {
		return ps.failf(weightsOff, fmt.Sprintf("profiles[%d].weights", i), "%d weights for %d samples", len(ps.weights), len(ps.nodes))
	}
	t := th.Start
	n := 0
	for j, node := range ps.nodes {
		path := func() string { return fmt.Sprintf("profiles[%d].weights[%d]", i, j) }
		w, err := ps.time(ps.weights[j], digits, path)
		if err != nil {
			return err
		}
		if w < 0 {
			return ps.failf(ps.weights[j][0], path(), "negative weight")
		}
		if w == 0 {
			continue
		}
		ps.addSample(node, t)
		n++
		if t += w; t > maxTime {
			return ps.failf(ps.weights[j][0], path(), "startValue plus the weights so far is out of range")
		}
	}
	if n > 0 {
		th.LastSampleEnd = t
	}
	return nil
}

// eventedTimes adds the samples of an evented profile: one at each distinct
// event time, with the stack the events at that time leave open (the root
// when none is), lasting until the next such time. The time from startValue
// to the first event and from the last to endValue is the root's (or that of
// the frames left open).
func (ps *parser) eventedTimes(th *profile.Thread, digits int, hasStart, hasEnd bool, i int) error {
	p := ps.b.P
	var stack []profile.NodeID
	top := func() profile.NodeID {
		if len(stack) == 0 {
			return ps.root
		}
		return stack[len(stack)-1]
	}
	cur := th.Start
	pending := false // events at cur, whose sample is not added yet
	for j := range ps.events {
		ev := &ps.events[j]
		path := func() string { return fmt.Sprintf("profiles[%d].events[%d]", i, j) }
		at, err := ps.time(ev.at, digits, func() string { return path() + ".at" })
		if err != nil {
			return err
		}
		switch {
		case pending && at < cur:
			return ps.failf(ev.off, path(), "at %s comes before the previous event's", ps.s.Raw(ev.at[0], ev.at[1]))
		case pending && at > cur, j == 0 && hasStart && at > cur:
			ps.addSample(top(), cur)
		}
		cur, pending = at, true
		if ev.open {
			stack = append(stack, ps.child(top(), ev.frame))
			continue
		}
		if len(stack) == 0 {
			return ps.failf(ev.off, path(), "closes frame %d with no frame open", ev.index)
		}
		if f := p.Nodes[top()].Frame; f != ev.frame {
			return ps.failf(ev.off, path(), "closes frame %d (%q) while %q is open", ev.index, p.Str(p.Frames[ev.frame].Name), p.Str(p.Frames[f].Name))
		}
		stack = stack[:len(stack)-1]
	}
	if !pending {
		return nil
	}
	if len(stack) > 0 {
		p.Diagnostics.Add("unclosed-frames", int64(len(stack)), "frames left open at the end of an evented profile were closed at its endValue")
	}
	th.LastSampleEnd = cur
	if hasEnd && th.End > cur {
		ps.addSample(top(), cur)
		th.LastSampleEnd = th.End
	}
	return nil
}

// number reads a number and returns its offsets, for time to convert once
// the unit is known. Errors are the scanner's, for the caller to locate.
func (ps *parser) number() ([2]int64, error) {
	s := ps.s
	if s.Kind() != '0' {
		return [2]int64{-1, -1}, s.TypeError("number")
	}
	start := s.Offset()
	if err := s.Skip(); err != nil {
		return [2]int64{-1, -1}, err
	}
	return [2]int64{start, s.Offset()}, nil
}

// time converts the number at off, in units of 10^digits ns, to ns. path
// is called only for an error.
func (ps *parser) time(off [2]int64, digits int, path func() string) (profile.Time, error) {
	raw := ps.s.Raw(off[0], off[1])
	v, ok := scaleDecimal(raw, digits)
	if !ok {
		return 0, ps.failf(off[0], path(), "%s out of range", raw)
	}
	return profile.Time(v), nil
}

// unitDigits returns the power of ten of a time unit in nanoseconds, or −1.
func unitDigits(unit string) int {
	switch unit {
	case "nanoseconds":
		return 0
	case "microseconds":
		return 3
	case "milliseconds":
		return 6
	case "seconds":
		return 9
	case "none":
		return 0 // sample counts: one per ns, as folded stacks' weights
	}
	return -1
}

// scaleDecimal returns the JSON number raw times 10^digits, rounded to the
// nearest integer (halves away from zero), computed exactly from its
// decimal digits; ok is false beyond ±maxTime.
func scaleDecimal(raw []byte, digits int) (v int64, ok bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	i := 0
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		i++
	}
	intPart, frac := raw[:i], raw[:0]
	if i < len(raw) && raw[i] == '.' {
		j := i + 1
		for j < len(raw) && raw[j] >= '0' && raw[j] <= '9' {
			j++
		}
		frac, i = raw[i+1:j], j
	}
	exp := 0
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		eneg := i < len(raw) && raw[i] == '-'
		if i < len(raw) && (raw[i] == '-' || raw[i] == '+') {
			i++
		}
		for ; i < len(raw); i++ {
			if exp < 100000 {
				exp = exp*10 + int(raw[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// The value is the digits of intPart and frac, as an integer D, times
	// 10^e.
	digit := func(k int) byte {
		if k < len(intPart) {
			return intPart[k]
		}
		return frac[k-len(intPart)]
	}
	n := len(intPart) + len(frac)
	z := 0
	for z < n && digit(z) == '0' {
		z++
	}
	if z == n {
		return 0, true
	}
	e := exp - len(frac) + digits
	keep := n - z + e // digits of the integer part of the result
	if keep > 19 {
		return 0, false
	}
	var u uint64
	for k := z; k < z+keep; k++ {
		d := byte('0')
		if k < n {
			d = digit(k)
		}
		u = u*10 + uint64(d-'0')
	}
	if r := z + max(keep, 0); r < n && digit(r) >= '5' && keep >= 0 {
		u++
	}
	if u > maxTime {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// splitName splits a profile name of the form "NAME (pid P, tid T)". Other
// names are the thread's name, with pid 1 and tid i+1.
func splitName(name string, i int) (string, int64, int64) {
	if k := strings.LastIndex(name, " (pid "); k >= 0 && strings.HasSuffix(name, ")") {
		pidStr, tidStr, ok := strings.Cut(name[k+len(" (pid "):len(name)-1], ", tid ")
		pid, err1 := strconv.ParseInt(pidStr, 10, 64)
		tid, err2 := strconv.ParseInt(tidStr, 10, 64)
		if ok && err1 == nil && err2 == nil {
			return name[:k], pid, tid
		}
	}
	return name, 1, int64(i + 1)
}

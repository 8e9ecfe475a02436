package firefox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// Versions Parse reads.
const (
	// MinGeckoVersion and MaxGeckoVersion bound the raw Gecko profile
	// versions (meta.version) read; older ones keep samples as objects.
	MinGeckoVersion = 3
	MaxGeckoVersion = GeckoVersion
	// MaxProcessedVersion is the newest processed profile version read.
	MaxProcessedVersion = ProcessedVersion
)

// testedProcessed lists the processed versions the tests read (0: the
// oldest files, with no preprocessedProfileVersion); others are read the
// same way and reported in the diagnostics.
var testedProcessed = []int64{0, 7, 24, ProcessedVersion}

// maxTime bounds the times Parse accepts (ns, either side of the profile's
// start), so that analyses can subtract them without overflow.
const maxTime = 1 << 61

// maxDepth bounds the nesting of the JSON values Parse keeps.
const maxDepth = 64

// Parse reads a Firefox profile, plain or gzip: a raw Gecko profile (as
// Firefox's profiler writes it, meta.version 3 to 36, sub-processes
// included, also wrapped in a DevTools recording as {"profile": …}), or a
// processed profile (the Firefox Profiler's format, from the oldest files
// with no meta.preprocessedProfileVersion to version 75, which Write
// writes).
//
// Each thread of the input becomes a thread of the profile, in file order
// (a Gecko profile's own threads, then those of its sub-processes):
//
//   - Its stacks become nodes under a "(root)" node, in stack-table order
//     (prefixes come first). A frame of the input named "(root)" (Gecko's
//     root label) is a native frame like any other, with its self samples,
//     as the Firefox Profiler shows it: only V8 profiles have the meta root.
//     Stacks with the same prefix and function are merged. Node.InputID is
//     the stack's index (the first of those merged). A stack table under a
//     processed profile's "shared" holds the stacks of every thread: a
//     thread's nodes are then those its samples reach, as in its call tree
//     in the Profiler; a thread's own table gives all its stacks.
//   - Frames are functions: a Gecko frame's location string ("fn (url:line:col)",
//     the URL after the last " -> ") or a processed frame's function (name,
//     fileName or source, lineNumber, columnNumber; old files keep the
//     location string in the name). Lines and columns become 0-based (−1 when
//     unknown); "(anonymous)" becomes "". Labels and addresses have no URL,
//     so they are native frames.
//   - Samples keep their times, converted from ms to ns exactly (decimal
//     input), relative to the main process's meta.startTime: Gecko
//     sub-process times are shifted by the difference of the start times, as
//     the Profiler does. A sample with a null stack is a sample of the root.
//     Samples out of time order are sorted (stably) and counted. A processed
//     profile with weightType "tracing-ms" gives the last sample's duration,
//     kept as Thread.LastSampleEnd; other weights are ignored and counted.
//   - pid and tid are kept when numeric; others (Gecko's "Unknown Process 1",
//     or none) get small numbers not otherwise used, and are counted.
//
// Markers, counters, libraries and categories are skipped. Errors are
// *profile.ParseError values with the offset and JSON path of the value.
func Parse(r io.Reader) (*profile.Profile, error) {
	data, err := input.Read(r, -1, input.Options{})
	if err != nil {
		return nil, err
	}
	return ParseBytes(data)
}

// ParseBytes is Parse for a decompressed input held in memory.
func ParseBytes(data []byte) (*profile.Profile, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &profile.ParseError{Offset: 0, Path: "$", Err: profile.ErrEmpty}
	}
	root, err := decode(data)
	if err != nil {
		return nil, err
	}
	ps := &parser{b: profile.NewBuilder("firefox")}
	if err := ps.file(root); err != nil {
		return nil, err
	}
	p := ps.b.P
	ps.finishThreads()
	if err := p.Validate(); err != nil {
		return nil, &profile.ParseError{Offset: -1, Path: "$", Err: fmt.Errorf("internal error: %w", err)}
	}
	return p, nil
}

// Sniff reports whether data (decompressed, possibly only its start) looks
// like a Firefox profile: a JSON object with a "meta" object holding a
// numeric "version" or "preprocessedProfileVersion" and an "interval" or
// "startTime", either at the top or in a "profile" member (a DevTools
// recording). A DevTools recording whose "profile" lies beyond data is
// recognised by its other members ("duration", "ticks", "allocations").
func Sniff(data []byte) bool {
	s := jsonscan.New(data)
	ok, _ := sniffObject(s, 0)
	return ok
}

// sniffObject looks for the meta of the object at s; devtools is true when
// the object's members are those of a DevTools recording.
func sniffObject(s *jsonscan.Scanner, depth int) (ok, devtools bool) {
	if s.BeginObject() != nil {
		return false, false
	}
	seen := 0
	for first := true; ; first = false {
		key, more, err := s.NextKey(first)
		if err != nil || !more {
			return false, false
		}
		switch string(key) {
		case "meta":
			return sniffMeta(s), false
		case "profile":
			if depth == 0 && s.Kind() == '{' {
				ok, _ := sniffObject(s, 1)
				return ok, false
			}
		case "duration", "ticks", "allocations":
			seen++
		case "traceEvents", "$schema", "nodes":
			return false, false
		}
		if err := s.Skip(); err != nil {
			return depth == 0 && seen == 3 && errors.Is(err, jsonscan.ErrEOF), false
		}
	}
}

func sniffMeta(s *jsonscan.Scanner) bool {
	if s.BeginObject() != nil {
		return false
	}
	var version, timing bool
	for first := true; ; first = false {
		key, more, err := s.NextKey(first)
		if err != nil || !more {
			return false
		}
		switch string(key) {
		case "version", "preprocessedProfileVersion":
			version = s.Kind() == '0'
		case "interval", "startTime":
			timing = true
		}
		if version && timing {
			return true
		}
		if s.Skip() != nil {
			return false
		}
	}
}

// value is a decoded JSON value with its offset. Objects keep their members
// in order; members Parse never reads are skipped (kind 's').
type value struct {
	off   int64
	kind  byte   // as jsonscan.Scanner.Kind, or 's' for a skipped value
	text  string // a string's contents or a number's literal
	elems []*value
	keys  []string
	vals  []*value
}

// skipped lists members that hold nothing Parse reads and may be large.
var skipped = map[string]bool{
	"markers": true, "libs": true, "counters": true, "pages": true, "pausedRanges": true,
	"nativeSymbols": true, "resourceTable": true, "profilerOverhead": true, "jsTracer": true,
	"extensions": true, "categories": true, "markerSchema": true, "jsAllocations": true,
	"nativeAllocations": true, "sourceLocationTable": true, "configuration": true,
	"frames": true, "memory": true, "ticks": true, "allocations": true, "lib": true,
	"systemHost": true, "systemClient": true, "screenshots": true,
}

// get returns the member k of an object, or nil.
func (v *value) get(k string) *value {
	if v == nil || v.kind != '{' {
		return nil
	}
	for i, key := range v.keys {
		if key == k {
			return v.vals[i]
		}
	}
	return nil
}

func (v *value) null() bool { return v == nil || v.kind == 'n' }

// kindMissing is the kind of the placeholder need and absent return for a
// member or cell the input lacks: its offset is that of the object or row
// lacking it, so that the "missing" error locates something.
const kindMissing = 'm'

// need returns member k of object v or, when v lacks it, a placeholder at
// v's offset.
func (v *value) need(k string) *value {
	if m := v.get(k); m != nil {
		return m
	}
	return absent(v)
}

// absent returns a placeholder for a value that parent lacks.
func absent(parent *value) *value {
	off := int64(-1)
	if parent != nil {
		off = parent.off
	}
	return &value{off: off, kind: kindMissing}
}

func describe(v *value) string {
	switch v.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '0':
		return "a number"
	}
	return "a value"
}

// decode reads the whole document.
func decode(data []byte) (*value, error) {
	s := jsonscan.New(data)
	v, err := decodeValue(s, 0)
	if err != nil {
		return nil, err
	}
	if !s.AtEnd() {
		return nil, &profile.ParseError{Offset: s.Offset(), Path: "$", Err: errors.New("unexpected data after the top-level value")}
	}
	return v, nil
}

func scanError(s *jsonscan.Scanner, err error) error {
	// The path is not known while decoding; the offset locates the problem.
	return jsonscan.Locate(err, s.Offset(), "$")
}

func decodeValue(s *jsonscan.Scanner, depth int) (*value, error) {
	k := s.Kind()
	v := &value{off: s.Offset(), kind: k}
	if depth > maxDepth && (k == '{' || k == '[') {
		return nil, &profile.ParseError{Offset: v.off, Path: "$", Err: fmt.Errorf("nesting deeper than %d", maxDepth)}
	}
	switch k {
	case '{':
		if err := s.BeginObject(); err != nil {
			return nil, scanError(s, err)
		}
		for first := true; ; first = false {
			key, more, err := s.NextKey(first)
			if err != nil {
				return nil, scanError(s, err)
			}
			if !more {
				return v, nil
			}
			name := string(key)
			var m *value
			if skipped[name] {
				m = &value{off: s.Offset(), kind: 's'}
				if err := s.Skip(); err != nil {
					return nil, scanError(s, err)
				}
			} else if m, err = decodeValue(s, depth+1); err != nil {
				return nil, err
			}
			v.keys = append(v.keys, name)
			v.vals = append(v.vals, m)
		}
	case '[':
		if err := s.BeginArray(); err != nil {
			return nil, scanError(s, err)
		}
		for first := true; ; first = false {
			more, err := s.NextElem(first)
			if err != nil {
				return nil, scanError(s, err)
			}
			if !more {
				return v, nil
			}
			e, err := decodeValue(s, depth+1)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
		}
	case '"':
		b, err := s.String()
		if err != nil {
			return nil, scanError(s, err)
		}
		v.text = string(b)
	case '0':
		start := s.Offset()
		if _, err := s.Float(); err != nil {
			return nil, scanError(s, err)
		}
		v.text = string(bytes.TrimSpace(s.Raw(start, s.Offset())))
	default:
		if err := s.Skip(); err != nil {
			return nil, scanError(s, err)
		}
	}
	return v, nil
}

// parser builds the profile.
type parser struct {
	b         *profile.Builder
	rootFrame profile.FrameID
	rootStart profile.Time // the main process's meta.startTime, ns
	// The tables under a processed profile's shared, read once for all the
	// threads that use them: strings by their array, functions by their
	// table and what it reads (strings, sources), stacks by their table and
	// what it reads (frames, functions). Every thread used to read them
	// again, so that T threads sharing S stacks cost T×S. Tables of a
	// thread's own are read with it and not kept.
	sharedStrings map[*value][]string
	sharedFuncs   map[funcsKey][]profile.FrameID
	sharedStacks  map[stacksKey]*stackTree
	// Per thread, for finishThreads: the input's pid and tid.
	infos     []threadInfo
	processed bool
}

// funcsKey identifies a function table read: the table and the string
// array and sources table it reads (nil when none).
type funcsKey struct{ table, strs, sources *value }

// stacksKey identifies a stack table read: the table, the frame table it
// reads and the functions of the frames.
type stacksKey struct {
	table, frames *value
	funcs         funcsKey
}

func (ps *parser) failf(v *value, path, format string, args ...any) error {
	off := int64(-1)
	if v != nil {
		off = v.off
	}
	return &profile.ParseError{Offset: off, Path: path, Err: fmt.Errorf(format, args...)}
}

// join returns the JSON path of member key of parent ("" for the top).
func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func index(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// object returns v as an object.
func (ps *parser) object(v *value, path string) (*value, error) {
	if v == nil || v.kind == kindMissing {
		return nil, ps.failf(v, path, "missing")
	}
	if v.kind != '{' {
		return nil, ps.failf(v, path, "%s, want an object", describe(v))
	}
	return v, nil
}

// array returns v as an array.
func (ps *parser) array(v *value, path string) ([]*value, error) {
	if v == nil || v.kind == kindMissing {
		return nil, ps.failf(v, path, "missing")
	}
	if v.kind != '[' {
		return nil, ps.failf(v, path, "%s, want an array", describe(v))
	}
	return v.elems, nil
}

// integer returns v as an int64.
func (ps *parser) integer(v *value, path string) (int64, error) {
	if v == nil || v.kind != '0' {
		if v == nil || v.kind == kindMissing {
			return 0, ps.failf(v, path, "missing")
		}
		return 0, ps.failf(v, path, "%s, want an integer", describe(v))
	}
	if n, err := strconv.ParseInt(v.text, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(v.text, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<62 {
		return 0, ps.failf(v, path, "%s is not an integer", v.text)
	}
	return int64(f), nil
}

// index returns v as an index into a table of n rows.
func (ps *parser) index(v *value, path, table string, n int) (int, error) {
	i, err := ps.integer(v, path)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= int64(n) {
		return 0, ps.failf(v, path, "%d is not an index of %s (%d rows)", i, table, n)
	}
	return int(i), nil
}

// millis returns v, a time in ms, as ns.
func (ps *parser) millis(v *value, path string) (profile.Time, error) {
	if v == nil || v.kind != '0' {
		if v == nil || v.kind == kindMissing {
			return 0, ps.failf(v, path, "missing")
		}
		return 0, ps.failf(v, path, "%s, want a number", describe(v))
	}
	t, ok := millisToTime(v.text)
	if !ok {
		return 0, ps.failf(v, path, "time %s ms out of range (±%d ns)", v.text, int64(maxTime))
	}
	return t, nil
}

// millisToTime converts a JSON number in ms to ns, exactly for plain
// decimals (rounding half away from zero past 6 fractional digits).
func millisToTime(lit string) (profile.Time, bool) {
	neg := strings.HasPrefix(lit, "-")
	s := strings.TrimPrefix(lit, "-")
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.Abs(f)*1e6 > maxTime {
			return 0, false
		}
		return profile.Time(math.Round(f * 1e6)), true
	}
	ip, fp, _ := strings.Cut(s, ".")
	if len(ip) > 13 {
		return 0, false
	}
	i, err := strconv.ParseInt(ip, 10, 64)
	if err != nil {
		return 0, false
	}
	var frac int64
	for k := range 6 {
		frac *= 10
		if k < len(fp) {
			frac += int64(fp[k] - '0')
		}
	}
	if len(fp) > 6 && fp[6] >= '5' {
		frac++
	}
	ns := i*1e6 + frac
	if ns > maxTime {
		return 0, false
	}
	if neg {
		ns = -ns
	}
	return profile.Time(ns), true
}

// strings reads a string table.
func (ps *parser) stringTable(v *value, path string) ([]string, error) {
	elems, err := ps.array(v, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		switch e.kind {
		case '"':
			out[i] = e.text
		case 'n':
		default:
			return nil, ps.failf(e, index(path, i), "%s, want a string", describe(e))
		}
	}
	return out, nil
}

// file reads the top-level object.
func (ps *parser) file(root *value) error {
	if root.kind != '{' {
		return ps.failf(root, "$", "%w: %s, want an object with meta and threads", profile.ErrUnrecognized, describe(root))
	}
	path := ""
	if root.get("meta") == nil && root.get("profile") != nil {
		root, path = root.get("profile"), "profile"
		if root.kind != '{' {
			return ps.failf(root, path, "%s, want an object", describe(root))
		}
	}
	meta := root.get("meta")
	if meta == nil || meta.kind != '{' {
		return ps.failf(root, join(path, "meta"), "%w: no meta object (want a Firefox profile)", profile.ErrUnrecognized)
	}
	ps.rootFrame = ps.b.Frame(profile.Frame{Name: ps.b.Intern("(root)"), Line: -1, Column: -1})
	if pv := meta.get("preprocessedProfileVersion"); pv != nil || processedShape(root) {
		var version int64
		if pv != nil {
			v, err := ps.integer(pv, join(path, "meta.preprocessedProfileVersion"))
			if err != nil {
				return err
			}
			version = v
		}
		if version < 0 || version > MaxProcessedVersion {
			return ps.failf(pv, join(path, "meta.preprocessedProfileVersion"), "processed profile version %d not supported (want 0 to %d)", version, MaxProcessedVersion)
		}
		if !slices.Contains(testedProcessed, version) {
			ps.b.P.Diagnostics.Add("firefox-untested-version", 1, "processed profile version %d is read like the versions tested (%v); check the result", version, testedProcessed)
		}
		ps.processed = true
		ps.b.P.Format = "firefox-processed"
		return ps.processedProfile(root, path)
	}
	ps.b.P.Format = "firefox-gecko"
	if st := meta.get("startTime"); st != nil {
		t, err := ps.millis(st, join(path, "meta.startTime"))
		if err != nil {
			return err
		}
		ps.rootStart = t
	}
	return ps.gecko(root, path, 0)
}

// processedShape reports whether a profile without
// preprocessedProfileVersion has processed threads (struct-of-arrays
// samples with a length, or a stringArray).
func processedShape(root *value) bool {
	th := root.get("threads")
	if th == nil || th.kind != '[' || len(th.elems) == 0 {
		return false
	}
	t := th.elems[0]
	return t.get("stringArray") != nil || t.get("samples").get("length") != nil
}

// gecko reads a raw Gecko profile (the main process or a sub-process) at
// path; depth counts the sub-process levels.
func (ps *parser) gecko(v *value, path string, depth int) error {
	if depth > 8 {
		return ps.failf(v, path, "sub-processes nested deeper than 8")
	}
	meta, err := ps.object(v.need("meta"), join(path, "meta"))
	if err != nil {
		return err
	}
	vpath := join(path, "meta.version")
	version, err := ps.integer(meta.need("version"), vpath)
	if err != nil {
		return err
	}
	if version < MinGeckoVersion || version > MaxGeckoVersion {
		return ps.failf(meta.get("version"), vpath, "Gecko profile version %d not supported (want %d to %d)", version, MinGeckoVersion, MaxGeckoVersion)
	}
	shift := profile.Time(0)
	if st := meta.get("startTime"); st != nil && depth > 0 {
		t, err := ps.millis(st, join(path, "meta.startTime"))
		if err != nil {
			return err
		}
		shift = t - ps.rootStart
	}
	threads, err := ps.array(v.need("threads"), join(path, "threads"))
	if err != nil {
		return err
	}
	for i, th := range threads {
		tpath := index(join(path, "threads"), i)
		if th.kind == '"' {
			// Version 3 keeps a sub-process as a JSON string.
			sub, err := decode([]byte(th.text))
			if err != nil {
				var pe *profile.ParseError
				if errors.As(err, &pe) {
					return ps.failf(th, tpath, "in the sub-process profile at offset %d: %w", pe.Offset, pe.Err)
				}
				return err
			}
			if sub.kind != '{' {
				return ps.failf(th, tpath, "sub-process is %s, want an object", describe(sub))
			}
			if err := ps.gecko(sub, tpath, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := ps.geckoThread(th, tpath, path, shift); err != nil {
			return err
		}
	}
	if procs := v.get("processes"); procs != nil {
		elems, err := ps.array(procs, join(path, "processes"))
		if err != nil {
			return err
		}
		for i, pr := range elems {
			ppath := index(join(path, "processes"), i)
			if _, err := ps.object(pr, ppath); err != nil {
				return err
			}
			if err := ps.gecko(pr, ppath, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// schemaTable is a Gecko {schema, data} table.
type schemaTable struct {
	cols map[string]int
	data []*value // the rows as values, for their offsets
	rows [][]*value
}

func (ps *parser) schemaTable(v *value, path string, need ...string) (*schemaTable, error) {
	if _, err := ps.object(v, path); err != nil {
		return nil, err
	}
	schema, err := ps.object(v.need("schema"), join(path, "schema"))
	if err != nil {
		return nil, err
	}
	t := &schemaTable{cols: map[string]int{}}
	for i, k := range schema.keys {
		c, err := ps.integer(schema.vals[i], join(path, "schema."+k))
		if err != nil {
			return nil, err
		}
		if c < 0 || c > 1<<16 {
			return nil, ps.failf(schema.vals[i], join(path, "schema."+k), "column %d out of range", c)
		}
		t.cols[k] = int(c)
	}
	for _, k := range need {
		if _, ok := t.cols[k]; !ok {
			return nil, ps.failf(schema, join(path, "schema"), "no %s column", k)
		}
	}
	data, err := ps.array(v.need("data"), join(path, "data"))
	if err != nil {
		return nil, err
	}
	t.data = data
	t.rows = make([][]*value, len(data))
	for i, row := range data {
		if t.rows[i], err = ps.array(row, index(join(path, "data"), i)); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// cell returns column col of row i, or nil when absent or short.
func (t *schemaTable) cell(i int, col string) *value {
	c, ok := t.cols[col]
	if !ok || c >= len(t.rows[i]) {
		return nil
	}
	return t.rows[i][c]
}

// need returns column col of row i or, when the row is too short, a
// placeholder at the row's offset (see absent).
func (t *schemaTable) need(i int, col string) *value {
	if v := t.cell(i, col); v != nil {
		return v
	}
	return absent(t.data[i])
}

// threadInfo is what a thread says about itself.
type threadInfo struct {
	name, processName, pid, tid string
	proc                        string // the JSON path of a Gecko (sub-)process
}

func (ps *parser) info(th *value) threadInfo {
	text := func(v *value) string {
		switch {
		case v == nil:
			return ""
		case v.kind == '"', v.kind == '0':
			return v.text
		}
		return ""
	}
	return threadInfo{name: text(th.get("name")), processName: text(th.get("processName")),
		pid: text(th.get("pid")), tid: text(th.get("tid"))}
}

func (ps *parser) geckoThread(th *value, path, proc string, shift profile.Time) error {
	if _, err := ps.object(th, path); err != nil {
		return err
	}
	strs, err := ps.stringTable(th.need("stringTable"), join(path, "stringTable"))
	if err != nil {
		return err
	}
	frames, err := ps.schemaTable(th.need("frameTable"), join(path, "frameTable"), "location")
	if err != nil {
		return err
	}
	stacks, err := ps.schemaTable(th.need("stackTable"), join(path, "stackTable"), "prefix", "frame")
	if err != nil {
		return err
	}
	samples, err := ps.schemaTable(th.need("samples"), join(path, "samples"), "stack", "time")
	if err != nil {
		return err
	}
	frameOf := make([]profile.FrameID, len(frames.rows))
	for i := range frames.rows {
		fp := index(join(path, "frameTable.data"), i)
		loc := frames.need(i, "location")
		k, err := ps.index(loc, fp, "stringTable", len(strs))
		if err != nil {
			return err
		}
		frameOf[i] = ps.locationFrame(strs[k])
	}
	info := ps.info(th)
	info.proc = proc
	t := ps.beginThread(info)
	tree := newStackTree(len(stacks.rows))
	for i := range stacks.rows {
		sp := index(join(path, "stackTable.data"), i)
		f, err := ps.index(stacks.need(i, "frame"), sp, "frameTable", len(frames.rows))
		if err != nil {
			return err
		}
		prefix := -1
		if pv := stacks.cell(i, "prefix"); !pv.null() {
			if prefix, err = ps.index(pv, sp, "stackTable", i); err != nil {
				return ps.failf(pv, sp, "prefix must name an earlier stack: %w", errors.Unwrap(err))
			}
		}
		tree.add(i, prefix, frameOf[f])
	}
	tree.built()
	var weighted int64
	for i := range samples.rows {
		sp := index(join(path, "samples.data"), i)
		tv := samples.need(i, "time")
		at, err := ps.millis(tv, sp)
		if err != nil {
			return err
		}
		n := profile.NoNode
		if sv := samples.cell(i, "stack"); sv.null() {
			t.nullStacks++
		} else {
			k, err := ps.index(sv, sp, "stackTable", len(stacks.rows))
			if err != nil {
				return err
			}
			n = tree.sample(k)
		}
		if w := samples.cell(i, "weight"); !w.null() && w.text != "1" {
			weighted++
		}
		if err := t.add(n, at+shift, ps, tv, sp); err != nil {
			return err
		}
	}
	ps.b.P.Diagnostics.Add("firefox-weight-ignored", weighted, "sample weights other than 1 are ignored in Gecko profiles (each row is one sample)")
	ps.makeNodes(t, tree)
	ps.endThread(t, 0)
	return nil
}

// processedProfile reads a processed profile.
func (ps *parser) processedProfile(root *value, path string) error {
	shared := root.get("shared")
	ps.sharedStrings = map[*value][]string{}
	ps.sharedFuncs = map[funcsKey][]profile.FrameID{}
	ps.sharedStacks = map[stacksKey]*stackTree{}
	threads, err := ps.array(root.need("threads"), join(path, "threads"))
	if err != nil {
		return err
	}
	for i, th := range threads {
		if err := ps.processedThread(th, index(join(path, "threads"), i), shared, join(path, "shared")); err != nil {
			return err
		}
	}
	return nil
}

// columns is a processed struct-of-arrays table.
type columns struct {
	v    *value
	path string
	n    int
}

// columns returns the table name of thread th, or of shared when th has
// none. A table in neither is missing from the thread (at its offset and
// path).
func (ps *parser) columns(th *value, tpath string, shared *value, spath, name string) (*columns, error) {
	v, isShared := ownOrShared(th, shared, name)
	path := join(tpath, name)
	switch {
	case isShared:
		path = join(spath, name)
	case v == nil:
		v = absent(th)
	}
	if _, err := ps.object(v, path); err != nil {
		return nil, err
	}
	c := &columns{v: v, path: path, n: -1}
	if l := v.get("length"); l != nil {
		n, err := ps.integer(l, join(path, "length"))
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, ps.failf(l, join(path, "length"), "negative length %d", n)
		}
		c.n = int(n)
	}
	return c, nil
}

// col returns column name, nil if absent; every column has the table's
// length (the first column read sets it when the table has none).
func (ps *parser) col(c *columns, name string) ([]*value, error) {
	v := c.v.get(name)
	if v == nil || v.null() {
		// A null column is an absent one: older processed profiles write
		// samples.weight: null for unweighted samples.
		return nil, nil
	}
	elems, err := ps.array(v, join(c.path, name))
	if err != nil {
		return nil, err
	}
	if c.n < 0 {
		c.n = len(elems)
	}
	if len(elems) < c.n {
		return nil, ps.failf(v, join(c.path, name), "%d values, want length %d", len(elems), c.n)
	}
	return elems[:c.n], nil
}

func (ps *parser) needCol(c *columns, name string) ([]*value, error) {
	e, err := ps.col(c, name)
	if err == nil && e == nil {
		err = ps.failf(c.v, c.path, "no %s column", name)
	}
	return e, err
}

func (ps *parser) processedThread(th *value, path string, shared *value, spath string) error {
	if _, err := ps.object(th, path); err != nil {
		return err
	}
	tree, err := ps.processedStacks(th, path, shared, spath)
	if err != nil {
		return err
	}
	t := ps.beginThread(ps.info(th))

	sc, err := ps.columns(th, path, nil, path, "samples")
	if err != nil {
		return err
	}
	stack, err := ps.needCol(sc, "stack")
	if err != nil {
		return err
	}
	times, err := ps.col(sc, "time")
	if err != nil {
		return err
	}
	var deltas []*value
	if times == nil {
		if deltas, err = ps.col(sc, "timeDeltas"); err != nil {
			return err
		}
		if deltas == nil {
			return ps.failf(sc.v, sc.path, "no time or timeDeltas column")
		}
	}
	weights, err := ps.col(sc, "weight")
	if err != nil {
		return err
	}
	weightType := "samples"
	if wt := sc.v.get("weightType"); wt != nil && wt.kind == '"' {
		weightType = wt.text
	}
	var at, lastWeight profile.Time
	var ignored int64
	for i, sv := range stack {
		if times != nil {
			if at, err = ps.millis(times[i], index(join(sc.path, "time"), i)); err != nil {
				return err
			}
		} else {
			d, err := ps.millis(deltas[i], index(join(sc.path, "timeDeltas"), i))
			if err != nil {
				return err
			}
			if at += d; at > maxTime || at < -maxTime {
				return ps.failf(deltas[i], index(join(sc.path, "timeDeltas"), i), "time beyond ±%d ns", int64(maxTime))
			}
		}
		n := profile.NoNode
		if sv.null() {
			t.nullStacks++
		} else {
			k, err := ps.index(sv, index(join(sc.path, "stack"), i), "stackTable", len(tree.canon))
			if err != nil {
				return err
			}
			n = tree.sample(k)
		}
		if weights != nil && !weights[i].null() {
			wp := index(join(sc.path, "weight"), i)
			if weightType == "tracing-ms" {
				if lastWeight, err = ps.millis(weights[i], wp); err != nil {
					return err
				}
			} else if weights[i].text != "1" {
				ignored++
			}
		}
		var tv *value
		if times != nil {
			tv = times[i]
		} else {
			tv = deltas[i]
		}
		if err := t.add(n, at, ps, tv, index(join(sc.path, "time"), i)); err != nil {
			return err
		}
	}
	ps.b.P.Diagnostics.Add("firefox-weight-ignored", ignored, "sample weights of type %q other than 1 are ignored (each row is one sample)", weightType)
	end := profile.Time(0)
	if weightType == "tracing-ms" && weights != nil && len(stack) > 0 && lastWeight > 0 && !t.unsorted {
		end = at + lastWeight
	}
	ps.makeNodes(t, tree)
	ps.endThread(t, end)
	return nil
}

// ownOrShared returns the table name of thread th or, when th has none, of
// shared (nil when neither has it), and whether it is shared's.
func ownOrShared(th, shared *value, name string) (*value, bool) {
	if v := th.get(name); v != nil {
		return v, false
	}
	v := shared.get(name)
	return v, v != nil
}

// readOnce returns what read returns for a table, kept in m under key when
// the table is under shared and returned from there to the threads after the
// first that reads it: they could not find an error in it that the first did
// not.
func readOnce[K comparable, V any](m map[K]V, key K, shared bool, read func() (V, error)) (V, error) {
	if v, ok := m[key]; ok && shared {
		return v, nil
	}
	v, err := read()
	if err == nil && shared {
		m[key] = v
	}
	return v, err
}

// processedStacks reads the stack table of thread th and the tables it
// reads, each table under shared once (see parser).
func (ps *parser) processedStacks(th *value, path string, shared *value, spath string) (*stackTree, error) {
	strs, skey, err := ps.processedStrings(th, path, shared, spath)
	if err != nil {
		return nil, err
	}
	funcs, fkey, err := ps.processedFuncs(th, path, shared, spath, strs, skey)
	if err != nil {
		return nil, err
	}
	stv, isShared := ownOrShared(th, shared, "stackTable")
	ftv, _ := ownOrShared(th, shared, "frameTable")
	return readOnce(ps.sharedStacks, stacksKey{table: stv, frames: ftv, funcs: fkey}, isShared, func() (*stackTree, error) {
		tree, err := ps.readStacks(th, path, shared, spath, funcs)
		if err == nil {
			// The stacks of every thread that uses the table: a thread's
			// nodes are those its samples reach.
			tree.reachedOnly = isShared
		}
		return tree, err
	})
}

// readStacks reads the stackTable of thread th (or of shared), whose
// frames' functions are funcs.
func (ps *parser) readStacks(th *value, path string, shared *value, spath string, funcs []profile.FrameID) (*stackTree, error) {
	ft, err := ps.columns(th, path, shared, spath, "frameTable")
	if err != nil {
		return nil, err
	}
	frameFunc, err := ps.needCol(ft, "func")
	if err != nil {
		return nil, err
	}
	st, err := ps.columns(th, path, shared, spath, "stackTable")
	if err != nil {
		return nil, err
	}
	stackFrame, err := ps.needCol(st, "frame")
	if err != nil {
		return nil, err
	}
	prefix, err := ps.col(st, "prefix")
	if err != nil {
		return nil, err
	}
	prefixOff, err := ps.col(st, "prefixOffset")
	if err != nil {
		return nil, err
	}
	if prefix == nil && prefixOff == nil {
		return nil, ps.failf(st.v, st.path, "no prefix or prefixOffset column")
	}
	tree := newStackTree(len(stackFrame))
	for i, fv := range stackFrame {
		f, err := ps.index(fv, index(join(st.path, "frame"), i), "frameTable", len(frameFunc))
		if err != nil {
			return nil, err
		}
		fn, err := ps.index(frameFunc[f], index(join(ft.path, "func"), f), "funcTable", len(funcs))
		if err != nil {
			return nil, err
		}
		pre := -1
		if prefix != nil {
			if pv := prefix[i]; !pv.null() {
				if pre, err = ps.index(pv, index(join(st.path, "prefix"), i), "stackTable", i); err != nil {
					return nil, err
				}
			}
		} else {
			pp := index(join(st.path, "prefixOffset"), i)
			off, err := ps.integer(prefixOff[i], pp)
			if err != nil {
				return nil, err
			}
			if off < 0 || off > int64(i) {
				return nil, ps.failf(prefixOff[i], pp, "offset %d does not name an earlier stack", off)
			}
			if off > 0 {
				pre = i - int(off)
			}
		}
		tree.add(i, pre, funcs[fn])
	}
	tree.built()
	return tree, nil
}

// processedStrings returns the string array of thread th and the value it
// is read from.
func (ps *parser) processedStrings(th *value, path string, shared *value, spath string) ([]string, *value, error) {
	v, vpath, isShared := th.get("stringArray"), join(path, "stringArray"), false
	switch {
	case v != nil:
	case th.get("stringTable") != nil:
		v, vpath = th.get("stringTable"), join(path, "stringTable")
	case shared == nil:
		// Neither the thread nor a shared object has strings: name the
		// thread, as columns does for a table.
		v = absent(th)
	default:
		v, vpath, isShared = shared.need("stringArray"), join(spath, "stringArray"), true
	}
	strs, err := readOnce(ps.sharedStrings, v, isShared, func() ([]string, error) { return ps.stringTable(v, vpath) })
	return strs, v, err
}

// processedFuncs returns the frame of each funcTable row, and what
// identifies them; strs is the string array read from skey.
func (ps *parser) processedFuncs(th *value, path string, shared *value, spath string, strs []string, skey *value) ([]profile.FrameID, funcsKey, error) {
	ftv, isShared := ownOrShared(th, shared, "funcTable")
	key := funcsKey{table: ftv, strs: skey}
	key.sources, _ = ownOrShared(th, shared, "sources")
	funcs, err := readOnce(ps.sharedFuncs, key, isShared, func() ([]profile.FrameID, error) {
		return ps.readFuncs(th, path, shared, spath, strs)
	})
	return funcs, key, err
}

// readFuncs reads the funcTable of thread th (or of shared).
func (ps *parser) readFuncs(th *value, path string, shared *value, spath string, strs []string) ([]profile.FrameID, error) {
	fc, err := ps.columns(th, path, shared, spath, "funcTable")
	if err != nil {
		return nil, err
	}
	names, err := ps.needCol(fc, "name")
	if err != nil {
		return nil, err
	}
	var cols [5][]*value
	for i, name := range [...]string{"fileName", "source", "lineNumber", "columnNumber", "flags"} {
		if cols[i], err = ps.col(fc, name); err != nil {
			return nil, err
		}
	}
	fileName, source, lineNumber, columnNumber, flags := cols[0], cols[1], cols[2], cols[3], cols[4]
	var sourceFile []*value
	if source != nil {
		sc, err := ps.columns(th, path, shared, spath, "sources")
		if err != nil {
			return nil, err
		}
		if sourceFile, err = ps.needCol(sc, "filename"); err != nil {
			return nil, err
		}
	}
	str := func(v *value, p string) (string, error) {
		k, err := ps.index(v, p, "the string table", len(strs))
		if err != nil {
			return "", err
		}
		return strs[k], nil
	}
	out := make([]profile.FrameID, len(names))
	for i, nv := range names {
		name, err := str(nv, index(join(fc.path, "name"), i))
		if err != nil {
			return nil, err
		}
		var fl int64 = -1 // all present unless the flags say otherwise
		if flags != nil {
			if fl, err = ps.integer(flags[i], index(join(fc.path, "flags"), i)); err != nil {
				return nil, err
			}
		}
		has := func(col []*value, bit int64) bool { return col != nil && !col[i].null() && fl&bit != 0 }
		if fileName == nil && source == nil {
			// The oldest files: the name is the location string.
			out[i] = ps.locationFrame(name)
			continue
		}
		f := profile.Frame{Line: -1, Column: -1}
		if name != "(anonymous)" {
			f.Name = ps.b.Intern(name)
		}
		switch {
		case has(fileName, funcHasSource):
			u, err := str(fileName[i], index(join(fc.path, "fileName"), i))
			if err != nil {
				return nil, err
			}
			f.URL = ps.b.Intern(u)
		case has(source, funcHasSource):
			sp := index(join(fc.path, "source"), i)
			k, err := ps.index(source[i], sp, "sources", len(sourceFile))
			if err != nil {
				return nil, err
			}
			u, err := str(sourceFile[k], sp)
			if err != nil {
				return nil, err
			}
			f.URL = ps.b.Intern(u)
		}
		if has(lineNumber, funcHasLine) {
			l, err := ps.integer(lineNumber[i], index(join(fc.path, "lineNumber"), i))
			if err != nil {
				return nil, err
			}
			f.Line = oneBased(l)
			if has(columnNumber, funcHasColumn) {
				c, err := ps.integer(columnNumber[i], index(join(fc.path, "columnNumber"), i))
				if err != nil {
					return nil, err
				}
				f.Column = oneBased(c)
			}
		}
		if name == "(root)" && f.URL == 0 {
			f.Kind = profile.KindNative // a function like any other: not V8's meta root
		}
		out[i] = ps.b.Frame(f)
	}
	return out, nil
}

// oneBased converts a 1-based line or column to 0-based; −1 when unknown.
func oneBased(n int64) int32 {
	if n <= 0 || n > math.MaxInt32 {
		return -1
	}
	return int32(n - 1)
}

// location matches a JS frame's location string: "name (url:line)" or
// "name (url:line:column)".
var location = regexp.MustCompile(`^(.*) \((.+?):(\d+)(?::(\d+))?\)$`)

// script matches the location string of a script's top level: "url:line"
// or "url:line:column", with a URL scheme.
var script = regexp.MustCompile(`^()([a-z][a-z0-9+.-]*://.*?):(\d+)(?::(\d+))?$`)

// locationFrame returns the frame of a location string. Gecko's "(root)"
// label is a native frame like any other (the Firefox Profiler shows it as a
// call node with its self time), not V8's meta root.
func (ps *parser) locationFrame(loc string) profile.FrameID {
	b := ps.b
	if loc == "(root)" {
		return b.Frame(profile.Frame{Name: b.Intern(loc), Line: -1, Column: -1, Kind: profile.KindNative})
	}
	f := profile.Frame{Name: b.Intern(loc), Line: -1, Column: -1}
	m := location.FindStringSubmatch(loc)
	if m == nil {
		m = script.FindStringSubmatch(loc)
	}
	if m != nil {
		u := m[2]
		if i := strings.LastIndex(u, " -> "); i >= 0 {
			u = u[i+len(" -> "):]
		}
		f.Name, f.URL = 0, b.Intern(u)
		if m[1] != "(anonymous)" {
			f.Name = b.Intern(m[1])
		}
		l, _ := strconv.ParseInt(m[3], 10, 64)
		f.Line = oneBased(l)
		if m[4] != "" && f.Line >= 0 {
			c, _ := strconv.ParseInt(m[4], 10, 64)
			f.Column = oneBased(c)
		}
	}
	return b.Frame(f)
}

// thread is a thread being read.
type thread struct {
	info       threadInfo
	root       profile.NodeID
	sampleFrom int
	nullStacks int64
	unsorted   bool
}

func (ps *parser) beginThread(info threadInfo) *thread {
	p := ps.b.P
	root := profile.NodeID(len(p.Nodes))
	p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NoNode, Frame: ps.rootFrame, InputID: -1})
	return &thread{info: info, root: root, sampleFrom: p.Samples.Node.Len()}
}

// stackTree is a stack table read: the call path of each stack, and per
// thread the nodes made for them. Stacks with the same prefix path and frame
// are one call path, whose node has the first such stack's index as
// InputID; that stack is the path's canonical stack.
type stackTree struct {
	canon  []int32           // each stack's canonical stack
	parent []int32           // each stack's prefix's canonical stack; -1 for none
	frame  []profile.FrameID // each stack's frame
	// reachedOnly is set for a table under shared, which holds the stacks
	// of every thread that uses it: a thread's nodes are then the stacks
	// its samples reach, as the Firefox Profiler's call tree of the thread
	// shows only those, and not every stack of every thread (T threads
	// sharing S stacks had T×S nodes). A thread's own table gives all its
	// stacks, as it always did, those of no sample (a marker's) included:
	// they cost no more than the thread's own input.
	reachedOnly bool
	// For the thread being read, cleared by makeNodes: the node of each
	// canonical stack (0 for none: a thread's root is never a stack's
	// node; -1 for a reached one whose node is yet to make), and the
	// stacks reached.
	nodeOf  []profile.NodeID
	reached []int32
	// While the table is read: the first child of each call path (by
	// canonical stack + 1; 0 is the root) and the other children. The
	// stacks of a deep call path have one child each, which a slice finds
	// where a map, read at random, cost a cache miss a stack.
	first    []firstChild
	children map[childKey]int32
}

type childKey struct {
	parent int32
	frame  profile.FrameID
}

// firstChild is the first child of a call path and its frame; stack is the
// child's canonical stack + 1, 0 when the path has no child.
type firstChild struct {
	frame profile.FrameID
	stack int32
}

func newStackTree(n int) *stackTree {
	return &stackTree{canon: make([]int32, n), parent: make([]int32, n), frame: make([]profile.FrameID, n),
		first: make([]firstChild, n+1), children: map[childKey]int32{}}
}

// add reads stack i, frame f on stack prefix (−1 for none), which comes
// before it.
func (tr *stackTree) add(i, prefix int, f profile.FrameID) {
	parent := int32(-1)
	if prefix >= 0 {
		parent = tr.canon[prefix]
	}
	tr.parent[i], tr.frame[i], tr.canon[i] = parent, f, int32(i)
	fc := &tr.first[parent+1]
	switch {
	case fc.stack == 0:
		*fc = firstChild{frame: f, stack: int32(i) + 1}
	case fc.frame == f:
		tr.canon[i] = fc.stack - 1
	default:
		k := childKey{parent, f}
		if c, ok := tr.children[k]; ok {
			tr.canon[i] = c
		} else {
			tr.children[k] = int32(i)
		}
	}
}

// built ends the reading of the table.
func (tr *stackTree) built() {
	tr.first, tr.children = nil, nil
	tr.nodeOf = make([]profile.NodeID, len(tr.canon))
}

// sample returns what a sample of stack k holds until makeNodes gives it
// its node: the stack's canonical stack. It marks the stacks the sample
// reaches when only those get nodes, walking up the prefixes to the first
// one already reached, so that a thread's walks cost its nodes.
func (tr *stackTree) sample(k int) profile.NodeID {
	c := tr.canon[k]
	if tr.reachedOnly {
		for s := c; s >= 0 && tr.nodeOf[s] == 0; s = tr.parent[s] {
			tr.nodeOf[s] = -1
			tr.reached = append(tr.reached, s)
		}
	}
	return profile.NodeID(c)
}

// makeNodes makes the nodes of thread t, one a call path of tree (all of
// them, or those reached), in stack-table order, so that a prefix's node
// comes before its stack's; then it gives the thread's samples their nodes
// (profile.NoNode, a null stack, is the root).
func (ps *parser) makeNodes(t *thread, tree *stackTree) {
	p := ps.b.P
	node := func(c int32) {
		parent := t.root
		if pc := tree.parent[c]; pc >= 0 {
			parent = tree.nodeOf[pc]
		}
		tree.nodeOf[c] = profile.NodeID(len(p.Nodes))
		p.Nodes = append(p.Nodes, profile.Node{Parent: parent, Frame: tree.frame[c], InputID: int64(c)})
	}
	if tree.reachedOnly {
		slices.Sort(tree.reached)
		for _, c := range tree.reached {
			node(c)
		}
	} else {
		for i, c := range tree.canon {
			if c == int32(i) {
				node(c)
			}
		}
	}
	s := &p.Samples
	for i := t.sampleFrom; i < s.Node.Len(); i++ {
		n := t.root
		if c := s.Node.At(i); c != profile.NoNode {
			n = tree.nodeOf[c]
		}
		s.Node.Set(i, n)
		p.Nodes[n].HitCount++
	}
	if tree.reachedOnly {
		for _, c := range tree.reached {
			tree.nodeOf[c] = 0
		}
		tree.reached = tree.reached[:0]
	} else {
		clear(tree.nodeOf)
	}
}

// add appends a sample of n, a stack's placeholder until makeNodes (see
// stackTree.sample).
func (t *thread) add(n profile.NodeID, at profile.Time, ps *parser, v *value, path string) error {
	if at > maxTime || at < -maxTime {
		return ps.failf(v, path, "time beyond ±%d ns", int64(maxTime))
	}
	s := &ps.b.P.Samples
	if k := s.Time.Len(); k > t.sampleFrom && s.Time.At(k-1) > at {
		t.unsorted = true
	}
	s.Node.Append(n)
	s.Time.Append(at)
	return nil
}

// endThread closes thread t; lastEnd is the end of its last sample when the
// input gives it, else 0.
func (ps *parser) endThread(t *thread, lastEnd profile.Time) {
	p := ps.b.P
	s := &p.Samples
	from, to := t.sampleFrom, s.Node.Len()
	if t.unsorted {
		idx := make([]int, to-from)
		for i := range idx {
			idx[i] = from + i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return compareTime(s.Time.At(a), s.Time.At(b)) })
		nodes := make([]profile.NodeID, len(idx))
		times := make([]profile.Time, len(idx))
		for i, j := range idx {
			nodes[i], times[i] = s.Node.At(j), s.Time.At(j)
		}
		for i, v := range times {
			s.Node.Set(from+i, nodes[i])
			s.Time.Set(from+i, v)
		}
		p.Diagnostics.Add("firefox-unsorted-samples", 1, "samples of a thread were out of time order and have been sorted (thread %q)", t.info.name)
	}
	p.Diagnostics.Add("firefox-null-stack", t.nullStacks, "samples with a null stack were counted as samples of the thread's root")
	th := profile.Thread{Name: t.info.name, ProcessName: t.info.processName,
		Nodes:   profile.Range{Start: int32(t.root), End: int32(len(p.Nodes))},
		Samples: profile.Range{Start: int32(from), End: int32(to)}}
	if to > from {
		th.Start, th.End = s.Time.At(from), s.Time.At(to-1)
		if lastEnd > th.End {
			th.End, th.LastSampleEnd = lastEnd, lastEnd
		}
	}
	p.Threads = append(p.Threads, th)
	ps.infos = append(ps.infos, t.info)
}

func compareTime(a, b profile.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// finishThreads sets every thread's pid and tid: numeric ones as they are,
// others (non-numeric or absent) numbered from 1 in order of appearance,
// skipping the numbers in use.
func (ps *parser) finishThreads() {
	p := ps.b.P
	numeric := func(s string) (int64, bool) {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	used := map[int64]bool{}
	for i := range p.Threads {
		for _, s := range [...]string{ps.infos[i].pid, ps.infos[i].tid} {
			if n, ok := numeric(s); ok {
				used[n] = true
			}
		}
	}
	next := int64(0)
	fresh := func() int64 {
		for next++; used[next]; next++ {
		}
		used[next] = true
		return next
	}
	pidOf := map[string]int64{}
	var synthetic int64
	for i := range p.Threads {
		th := &p.Threads[i]
		pid, tid := ps.infos[i].pid, ps.infos[i].tid
		if n, ok := numeric(pid); ok {
			th.PID = n
		} else {
			key := pid
			if key == "" {
				key = "\x00" + ps.infos[i].proc // threads with no pid: one process per Gecko process
			}
			n, ok := pidOf[key]
			if !ok {
				n = fresh()
				pidOf[key] = n
			}
			th.PID = n
			synthetic++
		}
		if n, ok := numeric(tid); ok {
			th.TID = n
		} else {
			th.TID = fresh()
			synthetic++
		}
		if th.ProcessName == "" && pid != "" {
			if _, ok := numeric(pid); !ok {
				th.ProcessName = pid
			}
		}
	}
	p.Diagnostics.Add("firefox-synthetic-ids", synthetic, "pids and tids that are absent or not numeric were given numbers not otherwise used")
}

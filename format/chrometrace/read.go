// Package chrometrace reads Chrome trace-event JSON (DevTools Performance
// recordings, chrome://tracing, Perfetto's JSON export, Node's trace log): a
// bare array of events or an object with traceEvents, plain or gzip, including
// the partial forms the format allows (no closing bracket, a trailing comma).
//
// It streams: events are parsed one at a time out of a window of the input,
// so memory grows with what is kept (the CPU profiles and the duration and
// instant events of threads), not with the file. CPU profiles are assembled
// from Profile/ProfileChunk events (and legacy CpuProfile events) as the
// DevTools SamplesHandler does (docs/devtools-engine.md §2.1): keyed by process and
// profile id, on the thread of the Profile event, one profile per thread
// chosen by source. B/E events are paired as the DevTools RendererHandler
// pairs them (§2.2): one LIFO stack across all threads, in file order.
//
// Every thread with a chosen profile becomes a profile.Thread with its
// samples and its X/I/B-E events (sorted as DevTools sorts a thread's
// entries). Oddities are counted in Profile.Diagnostics.
//
// Beyond DevTools, which ignores them (and says so in a diagnostic), it reads
// CpuProfile events of phase I (Chrome 65/66 timelines) like X ones, and the
// Trace Event Format's own samples: the top-level "samples" and
// "stackFrames" members of an object trace, one thread per (pid, tid) of the
// samples (see samples.go).
package chrometrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// Options controls Parse. The zero value means the defaults.
type Options struct {
	// MaxEventBytes bounds the size of one event (a ProfileChunk or a
	// screenshot can be megabytes); default 1 GiB.
	MaxEventBytes int
	// KeepArgs keeps the raw JSON args of the kept events in
	// Profile.EventArgs, for writing the trace out again (DevTools' handlers
	// need them). It costs memory; analyses do not need it.
	KeepArgs bool
	// Unsampled, if not nil, receives the threads without a CPU profile
	// (compositor, raster, GPU, workers that were not profiled) with their
	// duration and instant events, which are otherwise dropped (diagnostic
	// events-other-threads). The returned profile is the same either way:
	// these threads are not analysed, only drawn (jsprof view).
	Unsampled *[]EventThread
	// EventsRead, if not nil, is called once the events are read, before
	// the profiles are assembled from them. What the reader held to read
	// them is garbage then (a large trace's parsed events, buffered
	// between its two readers: megabytes), and the pages it took would be
	// resident beside the profiles made next; the jsprof command gives the
	// free heap back to the system there (docs/performance.md §5p).
	EventsRead func()
}

// EventThread is a thread of a trace without a CPU profile, with the
// events DevTools draws on its track.
type EventThread struct {
	PID, TID    int64
	Name        string // its thread_name metadata; "" if none
	ProcessName string // its process_name metadata; "" if none
	URL         string // its renderer process's page (profile.Thread.URL)
	// Events are its X, I and paired B/E events, sorted as a sampled
	// thread's (by start, then longest first). Their Name and Cat index
	// the returned profile's Strings; Thread is the EventThread's index.
	Events []profile.Event
}

// Sniff reports whether the start of a decompressed input looks like a trace:
// a JSON array, or an object whose members include traceEvents before any
// member of a .cpuprofile. sure is false when head is too short to tell.
func Sniff(head []byte) (trace, sure bool) {
	s := jsonscan.New(head)
	switch s.Peek() {
	case '[':
		return true, true
	case '{':
	default:
		return false, true
	}
	s.BeginObject()
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return false, !errors.Is(err, jsonscan.ErrEOF)
		}
		if !ok {
			return false, true
		}
		switch string(key) {
		case "traceEvents":
			return true, true
		case "nodes", "head", "timeDeltas", "timestamps":
			return false, true
		}
		if err := s.Skip(); err != nil {
			return false, !errors.Is(err, jsonscan.ErrEOF)
		}
	}
}

// Parse reads a trace from r (decompressed; see internal/input for gzip).
func Parse(r io.Reader, opts Options) (*profile.Profile, error) {
	rd := newReader(opts)
	rd.src = r
	rd.buf = make([]byte, min(4<<20, rd.max))
	if err := rd.run(); err != nil {
		return nil, err
	}
	rd.eventsRead()
	return rd.finish()
}

// ParseBytes reads a trace held in memory. It reads what Parse reads, with
// a large events array on two cores (split.go).
func ParseBytes(data []byte, opts Options) (*profile.Profile, error) {
	return parseWhole(data, opts, nil, nil)
}

// ParseMapped reads a trace from a file mapped into memory, as ParseBytes
// does. It calls release with each stretch of input it has gone past (its
// pages leave the process's memory, and progress is reported; an error
// stops the reader), and drop with a stretch read again whose pages are to
// go back without counting it twice. A fault (the file cut while being
// read) is returned as an error.
func ParseMapped(data []byte, opts Options, release func(lo, hi int64) error, drop func(lo, hi int64)) (p *profile.Profile, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			err = input.FaultError(e)
		}
	}()
	return parseWhole(data, opts, release, drop)
}

func parseWhole(data []byte, opts Options, release func(lo, hi int64) error, drop func(lo, hi int64)) (*profile.Profile, error) {
	rd := newReader(opts)
	rd.buf, rd.end, rd.eof, rd.whole = data, len(data), true, true
	rd.release, rd.drop = release, drop
	rd.deferEvents = rd.unsampled == nil && len(data) >= deferEventsBytes
	defer rd.stopSplit() // also when a fault unwinds the main reader
	err := rd.run()
	rd.stopSplit()
	if err != nil {
		return nil, err
	}
	rd.eventsRead()
	return rd.finish()
}

func newReader(opts Options) *reader {
	if opts.MaxEventBytes <= 0 {
		opts.MaxEventBytes = 1 << 30
	}
	rd := &reader{
		max:      opts.MaxEventBytes,
		b:        profile.NewBuilder("chrome-trace"),
		threadOf: map[threadKey]int32{},
		profOf:   map[profKey]*profState{},
		procName: map[profile.StringID]string{},

		boundsMin: math.Inf(1),
		boundsMax: math.Inf(-1),
	}
	rd.s.MaxDepth = jsonscan.DefaultMaxDepth
	rd.keepArgs = opts.KeepArgs
	rd.unsampled = opts.Unsampled
	rd.onRead = opts.EventsRead
	return rd
}

// eventsRead calls Options.EventsRead, if any, once the events are read.
func (r *reader) eventsRead() {
	if r.onRead != nil {
		r.onRead()
	}
}

// threadKey is a (pid, tid) pair of interned raw JSON tokens: 1 and "1" are
// different threads, as they are for DevTools.
type threadKey struct{ pid, tid profile.StringID }

type profKey struct{ pid, id profile.StringID }

type threadState struct {
	key     threadKey
	name    string
	hasName bool
	sampled bool // a Profile or CpuProfile event names it (deferEvents)
	kept    int  // its events in the store
}

// rawEvent is a kept X, I or (paired) B event, in file order: 24 bytes,
// because a big trace has millions (and a small one's store, most of its
// events a thread's without a profile, is most of its peak: 32 bytes an
// event were 2.6 of react-console-timestamp's 10.9 MB). Its name and
// category are one pair of the reader's (reader.pairs), its phase a bit:
// a B event is kept as an X, and only X and I events are kept. Sample
// trace ids are rare and kept in reader.traceIDs by event index.
type rawEvent struct {
	ts, dur float64 // µs, as the file gives them
	pair    uint32  // index in reader.pairs
	thread  uint32  // reader thread, with instantBit for an I event
}

const instantBit = 1 << 31

// th returns e's reader thread.
func (e *rawEvent) th() int32 { return int32(e.thread &^ instantBit) }

// ph returns e's phase, 'X' or 'I'.
func (e *rawEvent) ph() byte {
	if e.thread&instantBit != 0 {
		return 'I'
	}
	return 'X'
}

// eventPair is the name and category of kept events.
type eventPair struct{ name, cat profile.StringID }

// raw returns the rawEvent of thread t (ph 'X' or 'I').
func (r *reader) raw(t int32, name, cat profile.StringID, ph byte, ts, dur float64) rawEvent {
	e := rawEvent{ts: ts, dur: dur, pair: r.pairOf(name, cat), thread: uint32(t)}
	if ph == 'I' {
		e.thread |= instantBit
	}
	return e
}

// pairOf returns the index of (name, cat) in r.pairs, adding it if needed:
// through the name's first pair (most names have one category), else a map.
func (r *reader) pairOf(name, cat profile.StringID) uint32 {
	if int(name) < len(r.pairByName) {
		if i := r.pairByName[name]; i > 0 && r.pairs[i-1].cat == cat {
			return i - 1
		}
	}
	k := eventPair{name, cat}
	if i, ok := r.pairIndex[k]; ok {
		return i
	}
	i := uint32(len(r.pairs))
	r.pairs = append(r.pairs, k)
	if r.pairIndex == nil {
		r.pairIndex = map[eventPair]uint32{}
	}
	r.pairIndex[k] = i
	if int(name) >= len(r.pairByName) {
		r.pairByName = append(r.pairByName, make([]uint32, int(name)+1-len(r.pairByName))...)
	}
	if r.pairByName[name] == 0 {
		r.pairByName[name] = i + 1
	}
	return i
}

type profState struct {
	key       profKey
	asm       *v8.Assembler
	tid       profile.StringID
	hasThread bool
	start     float64
	end       float64 // as DevTools takes it (the first chunk's deltas)
	deltaSum  float64
	// endTime is the last data.endTime of the chunks (Node writes one).
	endTime    float64
	hasEndTime bool
	source     string
	broken     bool // samples and timeDeltas disagree (DevTools stops using the chunk)
	event      int  // index of the first event that named it
	parts      []part
}

// part is where the nodes and time deltas of one event of a profile are in
// the input, to locate the errors found only once the profile is assembled
// (v8.Assembler counts nodes and deltas across the profile's events).
type part struct {
	nodes, deltas int    // the event's first node and delta among the profile's
	event         string // the event's JSON path
	legacy        bool   // a CpuProfile event, else a ProfileChunk
	deltasOff     int64  // offset of the event's timeDeltas array, or −1
}

// paths returns the JSON paths of the objects holding the event's nodes
// and its timeDeltas, each ending in '.'.
func (pt *part) paths() (nodes, deltas string) {
	if pt.legacy {
		p := pt.event + ".args.data.cpuProfile."
		return p, p
	}
	return pt.event + ".args.data.cpuProfile.", pt.event + ".args.data."
}

type openB struct {
	event     int32 // index in events, or −1
	name, cat profile.StringID
	hasName   bool
	hasCat    bool
	// A deferred B event: its offset and ts (deferEvents).
	deferred bool
	off      int64
	ts       float64
}

type reader struct {
	src  io.Reader
	buf  []byte
	pos  int
	end  int
	base int64 // offset of buf[0] in the input
	eof  bool
	max  int
	s    jsonscan.Scanner
	// whole tells that buf is the whole input (ParseBytes, ParseMapped):
	// the events array may be read on two cores (split, split.go), and
	// the stretches gone past are given to release (drop gives back a
	// stretch read again).
	whole      bool
	release    func(lo, hi int64) error
	drop       func(lo, hi int64)
	released   int64
	split      *split
	splitTried bool
	// What is being read, for the error when it outgrows max: event
	// item of the array at itemPath, or a member name when item < 0.
	itemPath string
	item     int

	b        *profile.Builder
	threads  []threadState
	threadOf map[threadKey]int32
	profOf   map[profKey]*profState
	profs    []*profState
	procName map[profile.StringID]string
	procURL  map[profile.StringID]string // pid → main frame URL (else its first frame's)
	procMain map[profile.StringID]bool   // procURL is a main frame's
	events   eventStore
	// The kept events' (name, category) pairs (rawEvent.pair), found by
	// the name's first pair (its index + 1) or else by the map.
	pairs      []eventPair
	pairByName []uint32
	pairIndex  map[eventPair]uint32
	traceIDs   map[int]int64 // event index → sample trace id
	keepArgs   bool
	args       map[int][]byte // event index → raw args (KeepArgs)
	// unsampled receives the threads without a profile (Options.Unsampled).
	unsampled *[]EventThread
	// onRead is Options.EventsRead.
	onRead  func()
	open    []openB
	nEvents int // array elements seen

	// Deferred events. Reading whole input without Options.Unsampled, the
	// events of a thread that no Profile or CpuProfile event has named
	// yet are held as their offsets only, and finish reads again those of
	// the threads that turn out to be sampled: most events of a browser
	// trace belong to threads without a profile (a 2 GB trace: 10.5 M of
	// 11.5 M), and 32 bytes of each were most of its peak memory.
	deferEvents bool
	deferred    [][]int64          // reader thread → offsets of its deferred events, in order
	deferredDur map[int64]float64  // offset of a deferred B event → the duration its E gave
	sampledKeys map[threadKey]bool // threads named by a Profile or CpuProfile event

	lastPid, lastTid []byte
	lastThread       int32

	diag     profile.Diagnostics
	badTimes int
	web      bool // saw an event that makes the trace non-generic for DevTools

	// DevTools' trace bounds (MetaHandler): min ts and max ts+dur, in µs,
	// and the ts of the last TracingStartedInBrowser event.
	boundsMin, boundsMax float64
	started              float64
	hasStarted           bool
	uma                  []int8 // per StringID: 0 unknown, 1 name ends in "::UMA", −1 not

	icache [512]struct { // intern's cache
		s  string
		id profile.StringID
		ok bool
	}

	// The top-level samples and stackFrames of an object trace (see
	// samples.go), and the capture of a value as it is skipped.
	topSamples, stackFrames rawValue
	capturing               bool
	capStart                int // start of the captured bytes still in buf
	captured                []byte
}

// fill reads more input, keeping buf[pos:end]. It reports whether any byte
// was added.
func (r *reader) fill() (bool, error) {
	if r.eof {
		return false, nil
	}
	if r.pos > 0 {
		if r.capturing {
			r.captured = append(r.captured, r.buf[r.capStart:r.pos]...)
			r.capStart = 0
		}
		n := copy(r.buf, r.buf[r.pos:r.end])
		r.base += int64(r.pos)
		r.end, r.pos = n, 0
	}
	if r.end == len(r.buf) {
		if len(r.buf) >= r.max {
			// buf[0:end] is all one event or member name: buf[pos:end] is kept.
			if r.item < 0 {
				return false, &profile.ParseError{Offset: r.base, Path: "$", Err: fmt.Errorf("member name larger than %d bytes", r.max)}
			}
			return false, r.eventTooLarge(r.base)
		}
		nb := make([]byte, min(2*len(r.buf), r.max))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err == io.EOF {
			r.eof = true
			return n > 0, nil
		}
		if err != nil {
			return n > 0, err
		}
		if n > 0 {
			return true, nil
		}
	}
}

// fillMore is fill for an item read again from its start after each fill
// (an event, a member name): it reads until the window holds at least
// twice what it held, or the input ends, so that the retries read each
// byte of the item a bounded number of times. One fill adds what one Read
// gives (32 KB from gzip, 64 KB from a pipe): a 60 MB ProfileChunk read
// from a gzip file was parsed again 2,000 times (2 M samples: 5.4 s).
func (r *reader) fillMore() (bool, error) {
	want := 2 * (r.end - r.pos)
	added := false
	for {
		more, err := r.fill()
		added = added || more
		if err != nil || !more || r.end-r.pos >= want {
			return added, err
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end of input.
func (r *reader) peek() (byte, error) {
	for {
		for r.pos < r.end {
			switch c := r.buf[r.pos]; c {
			case ' ', '\t', '\r', '\n':
				r.pos++
			default:
				return c, nil
			}
		}
		more, err := r.fill()
		if err != nil {
			return 0, err
		}
		if !more {
			return 0, nil
		}
	}
}

// eventTooLarge is the error for the event being read (itemPath, item),
// which starts at off and outgrows max.
func (r *reader) eventTooLarge(off int64) error {
	return &profile.ParseError{Offset: off, Path: fmt.Sprintf("%s[%d]", r.itemPath, r.item),
		Err: fmt.Errorf("event larger than %d bytes", r.max)}
}

func (r *reader) errAt(path string, format string, args ...any) error {
	return &profile.ParseError{Offset: r.base + int64(r.pos), Path: path, Err: fmt.Errorf(format, args...)}
}

func (r *reader) run() error {
	c, err := r.peek()
	if err != nil {
		return err
	}
	switch c {
	case '[':
		r.pos++
		return r.readEvents("")
	case '{':
		r.pos++
		return r.readObject()
	case 0:
		return &profile.ParseError{Offset: r.base + int64(r.pos), Path: "$", Err: profile.ErrEmpty}
	}
	return r.errAt("$", "%w: want a JSON array or object of trace events", profile.ErrUnrecognized)
}

// readObject reads the members of the top-level object; traceEvents is
// streamed, the others are skipped without being held in memory.
func (r *reader) readObject() error {
	sawEvents := false
	for first := true; ; first = false {
		c, err := r.peek()
		if err != nil {
			return err
		}
		switch {
		case c == 0:
			if !sawEvents {
				return r.errAt("$", "%w: the object ends before traceEvents", profile.ErrTruncated)
			}
			r.diag.Add("truncated-object", 1, "the trace object is not closed (truncated file); everything before the cut was read")
			return nil
		case c == '}':
			r.pos++
			if !sawEvents {
				return r.errAt("$", "%w: no traceEvents member", profile.ErrUnrecognized)
			}
			return nil
		case !first:
			if c != ',' {
				return r.errAt("$", "want ',' or '}' after a member of the trace object, got %q", c)
			}
			r.pos++
			if c, err = r.peek(); err != nil {
				return err
			}
		}
		if c != '"' {
			if c == 0 {
				continue
			}
			return r.errAt("$", "want a member name in the trace object, got %q", c)
		}
		key, err := r.readKey()
		if err != nil {
			return err
		}
		switch key {
		case "traceEvents":
			if c, err = r.peek(); err != nil {
				return err
			}
			if c != '[' {
				return r.errAt("traceEvents", "want an array, got %q", c)
			}
			r.pos++
			sawEvents = true
			if err := r.readEvents("traceEvents"); err != nil {
				return err
			}
		case "samples", "stackFrames":
			v, err := r.captureValue(key)
			if err != nil {
				return err
			}
			if key == "samples" {
				r.topSamples = v
			} else {
				r.stackFrames = v
			}
		default:
			if err := r.skipValue("$." + key); err != nil {
				return err
			}
		}
	}
}

// readKey reads `"name":` of the top-level object.
func (r *reader) readKey() (string, error) {
	r.item = -1
	for {
		r.s.Reset(r.buf[r.pos:r.end])
		key, ok, err := r.s.NextKey(true)
		if err == nil && ok {
			r.pos += int(r.s.Offset())
			return string(key), nil
		}
		if errors.Is(err, jsonscan.ErrEOF) {
			more, ferr := r.fillMore()
			if ferr != nil {
				return "", ferr
			}
			if more {
				continue
			}
			return "", r.errAt("$", "%w: inside a member name", profile.ErrTruncated)
		}
		return "", r.errAt("$", "invalid member name: %v", err)
	}
}

// skipValue skips one value of any size, refilling the window as it goes.
func (r *reader) skipValue(path string) error {
	depth := 0
	inString, escape := false, false
	started := false
	for {
		for r.pos < r.end {
			c := r.buf[r.pos]
			switch {
			case inString:
				if escape {
					escape = false
				} else if c == '\\' {
					escape = true
				} else if c == '"' {
					inString = false
					if depth == 0 {
						r.pos++
						return nil
					}
				} else if i := bytes.IndexAny(r.buf[r.pos:r.end], "\"\\"); i > 0 {
					r.pos += i
					continue
				}
			case c == '"':
				inString, started = true, true
			case c == '{' || c == '[':
				depth++
				started = true
			case c == '}' || c == ']':
				if depth == 0 {
					if !started {
						return r.errAt(path, "want a value, got %q", c)
					}
					return nil // the end of a primitive, or of the enclosing container
				}
				depth--
				if depth == 0 {
					r.pos++
					return nil
				}
			case c == ',' && depth == 0:
				if !started {
					return r.errAt(path, "want a value, got ','")
				}
				return nil
			case c == ' ' || c == '\n' || c == '\r' || c == '\t':
				if depth == 0 && started {
					return nil
				}
			default:
				started = true
			}
			r.pos++
		}
		more, err := r.fill()
		if err != nil {
			return err
		}
		if !more {
			if depth == 0 && started && !inString {
				return nil
			}
			return r.errAt(path, "%w: inside a value", profile.ErrTruncated)
		}
	}
}

// readEvents streams the elements of the events array.
func (r *reader) readEvents(path string) error {
	if path == "" {
		path = "$"
	}
	r.splitEvents()
	atElem := false // at an element after a segment (its comma passed)
	for first := true; ; first = false {
		c, err := r.peek()
		if err != nil {
			return err
		}
		if c == ']' {
			r.pos++
			return nil
		}
		if c == 0 {
			r.diag.Add("unterminated-array", 1, "the events array has no closing ']' (allowed by the trace format)")
			return nil
		}
		if r.release != nil {
			if at := r.base + int64(r.pos); at-r.released >= releaseEvery {
				if err := r.release(r.released, at); err != nil {
					return err
				}
				r.released = at
			}
		}
		if !first && !atElem {
			if c != ',' {
				return r.errAt(fmt.Sprintf("%s[%d]", path, r.nEvents), "want ',' or ']' after an event, got %q", c)
			}
			r.pos++
			if c, err = r.peek(); err != nil {
				return err
			}
			if c == 0 {
				r.diag.Add("unterminated-array", 1, "the events array ends with a comma and no ']' (allowed by the trace format)")
				return nil
			}
			if c == ']' {
				r.diag.Add("trailing-comma", 1, "the events array ends with a trailing comma")
				r.pos++
				return nil
			}
		}
		atElem = false
		if r.split != nil {
			next, err := r.takeSegment(path)
			if err != nil || next == segClosed {
				return err
			}
			if next != segNone {
				atElem = next == segAtElement
				continue
			}
		}
		if err := r.readEvent(path); err != nil {
			return err
		}
	}
}

// ev holds the fields of one event; slices alias the window.
type ev struct {
	ph              byte
	name, cat       profile.StringID
	hasName, hasCat bool
	isProfile       bool // name is Profile, ProfileChunk or CpuProfile
	// twice tells a name or category was interned twice (duplicate
	// keys); catFirst that the category came first.
	twice            bool
	catFirst         bool
	pre              *chunk // a ProfileChunk's args read ahead (preChunk)
	isWeb            bool   // name marks a Chrome web trace (MetaHandler)
	pid, tid, id     []byte
	hasID            bool
	ts, dur          float64
	args0, args1     int // args range within the event
	traceID          int64
	sawBeginData     bool
	traceIDArgs      int64
	traceIDData      int64
	hasTIDA, hasTIDD bool
	badTimes         int // ts or dur strings that are not numbers
	// The first ts or dur beyond any clock: its key ('t' or 'd'), value and
	// offset in the event. It is an error once the event has been read
	// whole (a number cut off by the window could be larger than its value).
	bigKey byte
	big    float64
	bigOff int
}

// maxMicros bounds the ts, dur and timeDeltas the reader accepts, in µs:
// ±2^62 ns (±146 years), as the .cpuprofile reader, keeps every sum and
// difference of two times inside an int64 of ns.
const maxMicros = 1 << 62 / 1000

// plainValues turns parseEvent's reading of names as words and of values
// in place on (a variable for tests, which read without them).
var plainValues = true

// plainByte reports whether c stands for itself inside a JSON string.
func plainByte(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' }

// stringOrNull reads the string or null at d[at] (the scanner's offset,
// after white space): a plain string (no escape) in place, the bytes
// String would return, else through Null and String.
func stringOrNull(s *jsonscan.Scanner, d []byte, at int) (b []byte, null bool, err error) {
	if plainValues && at < len(d) && d[at] == '"' {
		if end := jsonscan.PlainString(d, at+1); end >= 0 {
			s.SetOffset(int64(end + 1))
			return d[at+1 : end], false, nil
		}
	}
	if s.Null() {
		return nil, true, nil
	}
	b, err = s.String()
	return b, false, err
}

// readEvent parses the next element, retrying with more input when the
// window ends inside it, then applies it.
func (r *reader) readEvent(path string) error {
	idx := r.nEvents
	r.nEvents++
	r.itemPath, r.item = path, idx
	for {
		var e ev
		r.s.Reset(r.buf[r.pos:r.end])
		err := r.parseEvent(&e)
		if err == nil && r.whole && r.s.Offset() > int64(r.max) {
			return r.eventTooLarge(r.base + int64(r.pos)) // as fill finds it reading a stream
		}
		if err == nil {
			start := r.pos
			r.pos += int(r.s.Offset())
			r.badTimes += e.badTimes // once the event is whole: a retry reads them again
			return r.apply(&e, r.buf[start:r.pos], r.base+int64(start), idx, path)
		}
		if errors.Is(err, jsonscan.ErrEOF) {
			more, ferr := r.fillMore()
			if ferr != nil {
				return ferr
			}
			if more {
				continue
			}
			r.diag.Add("truncated-event", 1, "the last event is cut off (truncated file) and was dropped")
			r.pos = r.end
			return nil
		}
		if pe, ok := err.(*profile.ParseError); ok {
			// A value of the event rejected by parseEvent: located within it.
			return &profile.ParseError{Offset: r.base + int64(r.pos) + pe.Offset,
				Path: fmt.Sprintf("%s[%d]%s", path, idx, pe.Path), Err: pe.Err}
		}
		pe := jsonscan.Locate(err, 0, fmt.Sprintf("%s[%d]", path, idx))
		pe.Offset += r.base + int64(r.pos)
		return pe
	}
}

var webMarkers = map[string]bool{"TracingStartedInPage": true, "TracingSessionIdForWorker": true, "TracingStartedInBrowser": true}

var (
	nameProfile      = []byte("Profile")
	nameProfileChunk = []byte("ProfileChunk")
	nameCpuProfile   = []byte("CpuProfile")
)

// parseEvent reads one event object from r.s.
func (r *reader) parseEvent(e *ev) error {
	s := &r.s
	if err := s.BeginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		// The member's name: compared as a word where it is one that
		// Chrome writes (readEventKey), else read and switched on.
		var err error
		var k eventKey
		ok := false
		if plainValues {
			k, ok = readEventKey(s, first)
		}
		if !ok {
			var key []byte
			if key, ok, err = s.NextKey(first); err != nil {
				return err
			}
			if !ok {
				break
			}
			k = keyOf(key)
		}
		// The values as Chrome writes them are read in place first (a
		// plain string, a plain integer): what the calls below return for
		// them, without their tests (plainValues). Each of those skips
		// the white space before its value first (but the args' range
		// starts before it).
		before := s.Offset()
		s.Peek()
		d, at := s.Raw(0, int64(s.Len())), int(s.Offset())
		switch k {
		case kPh:
			if plainValues && at+2 < len(d) && d[at] == '"' && d[at+2] == '"' && plainByte(d[at+1]) {
				e.ph = d[at+1]
				s.SetOffset(int64(at + 3))
				continue
			}
			b, err := s.String()
			if err != nil {
				return err
			}
			if len(b) == 1 {
				e.ph = b[0]
			} else {
				e.ph = '?'
			}
		case kName:
			b, null, err := stringOrNull(s, d, at)
			if err != nil {
				return err
			}
			if null {
				continue
			}
			e.isProfile = bytes.Equal(b, nameProfile) || bytes.Equal(b, nameProfileChunk) || bytes.Equal(b, nameCpuProfile)
			e.isWeb = bytes.Equal(b, nameCpuProfile) || bytes.HasPrefix(b, []byte("Tracing")) && webMarkers[string(b)]
			e.twice = e.twice || e.hasName
			e.name, e.hasName = r.intern(b), true
		case kCat:
			b, null, err := stringOrNull(s, d, at)
			if err != nil {
				return err
			}
			if null {
				continue
			}
			e.catFirst = e.catFirst || !e.hasName
			e.twice = e.twice || e.hasCat
			e.cat, e.hasCat = r.intern(b), true
		case kPid, kTid, kID:
			var raw []byte
			if _, end, ok := jsonscan.PlainInt(d, at); ok && plainValues {
				raw = d[at:end]
				s.SetOffset(int64(end))
			} else {
				if err := s.Skip(); err != nil {
					return err
				}
				raw = s.Raw(int64(at), s.Offset())
			}
			switch k {
			case kPid:
				e.pid = raw
			case kTid:
				e.tid = raw
			default:
				e.id, e.hasID = raw, true
			}
		case kTs, kDur:
			off := at
			var f float64
			if plainValues && at < len(d) && (d[at] == '-' || d[at]-'0' <= 9) {
				if f, err = s.Float(); err != nil { // what Kind's '0' leads to below
					return err
				}
			} else if s.Null() {
				continue
			} else if s.Kind() == '"' { // some exporters (Hermes) write numbers as strings
				b, err := s.String()
				if err != nil {
					return err
				}
				// "1e400" is a number beyond any clock (±Inf, ErrRange);
				// "NaN" is not a number.
				if f, err = strconv.ParseFloat(string(b), 64); err != nil && !errors.Is(err, strconv.ErrRange) || f != f {
					e.badTimes++
					continue
				}
			} else if f, err = s.Float(); err != nil {
				return err
			}
			if !(f <= maxMicros && f >= -maxMicros) && e.bigKey == 0 {
				e.bigKey, e.big, e.bigOff = 't', f, off
				if k == kDur {
					e.bigKey = 'd'
				}
			}
			if k == kTs {
				e.ts = f
			} else {
				e.dur = f
			}
		case kArgs:
			e.args0 = int(before)
			if plainValues && at+1 < len(d) && d[at] == '{' && d[at+1] == '}' {
				e.args1 = at + 2 // most events' args: what parseArgsTraceID reads of them
				s.SetOffset(int64(at + 2))
				continue
			}
			if err := r.parseArgsTraceID(e); err != nil {
				return err
			}
			e.args1 = int(s.Offset())
		default:
			if _, end, ok := jsonscan.PlainInt(d, at); ok && plainValues {
				s.SetOffset(int64(end)) // tdur, tts: what Skip skips
				continue
			}
			if err := s.Skip(); err != nil {
				return err
			}
		}
	}
	if e.bigKey != 0 {
		key := ".ts"
		if e.bigKey == 'd' {
			key = ".dur"
		}
		return &profile.ParseError{Offset: int64(e.bigOff), Path: key, Err: fmt.Errorf("time %g µs out of range", e.big)}
	}
	// DevTools' extractSampleTraceId.
	switch {
	case e.sawBeginData:
	case e.hasTIDA:
		e.traceID = e.traceIDArgs
	case e.hasTIDD:
		e.traceID = e.traceIDData
	}
	return nil
}

// intern interns b, made valid UTF-8 (as DevTools' decoder does). The
// strings interned are valid, so a string found is valid as it is: only a
// new one is checked.
func (r *reader) intern(b []byte) profile.StringID {
	// Names and categories repeat: a small cache by a cheap hash of the
	// bytes answers most without hashing them for the map.
	h := uint(len(b))
	if len(b) > 0 {
		h = h*31 + uint(b[0])
		h = h*31 + uint(b[len(b)/2])
		h = h*31 + uint(b[len(b)-1])
	}
	c := &r.icache[h%uint(len(r.icache))]
	if c.ok && c.s == string(b) {
		return c.id
	}
	id := r.internMiss(b)
	c.s, c.id, c.ok = r.b.P.Strings[id], id, true
	return id
}

func (r *reader) internMiss(b []byte) profile.StringID {
	if id, ok := r.b.Lookup(b); ok {
		return id
	}
	if !utf8Valid(b) {
		return r.b.Intern(jsonscan.ToValidUTF8(b))
	}
	return r.b.Intern(string(b))
}

// parseArgsTraceID walks args looking only for the sample trace id, in
// args.beginData.sampleTraceId, args.sampleTraceId or args.data.sampleTraceId.
func (r *reader) parseArgsTraceID(e *ev) error {
	s := &r.s
	if s.Kind() != '{' {
		return s.Skip()
	}
	s.BeginObject()
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(key) {
		case "sampleTraceId":
			e.traceIDArgs, e.hasTIDA, err = r.readTraceID()
		case "data", "beginData":
			isBegin := key[0] == 'b'
			if isBegin {
				e.sawBeginData = true
			}
			if s.Kind() != '{' {
				err = s.Skip()
				break
			}
			s.BeginObject()
			for f := true; ; f = false {
				k, ok, err2 := s.NextKey(f)
				if err2 != nil {
					return err2
				}
				if !ok {
					break
				}
				if string(k) == "sampleTraceId" {
					v, has, err3 := r.readTraceID()
					if err3 != nil {
						return err3
					}
					if isBegin {
						e.traceID = v
					} else {
						e.traceIDData, e.hasTIDD = v, has
					}
					continue
				}
				if err := s.Skip(); err != nil {
					return err
				}
			}
		default:
			err = s.Skip()
		}
		if err != nil {
			return err
		}
	}
}

// readTraceID reads a sample trace id; null means none ("??" in DevTools).
func (r *reader) readTraceID() (int64, bool, error) {
	s := &r.s
	if s.Null() {
		return 0, false, nil
	}
	if s.Kind() != '0' {
		return 0, true, s.Skip() // not a number: never matches a profile's trace id
	}
	f, err := s.Float()
	if err != nil {
		return 0, false, err
	}
	if f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, true, nil
	}
	return int64(f), true, nil
}

// thread returns the index of the thread with the given raw pid and tid.
func (r *reader) thread(pid, tid []byte) int32 {
	if r.lastPid != nil && bytes.Equal(pid, r.lastPid) && bytes.Equal(tid, r.lastTid) {
		return r.lastThread
	}
	k := threadKey{r.b.InternBytes(pid), r.b.InternBytes(tid)}
	t, ok := r.threadOf[k]
	if !ok {
		t = int32(len(r.threads))
		r.threads = append(r.threads, threadState{key: k, sampled: r.sampledKeys[k]})
		r.threadOf[k] = t
	}
	r.lastPid = append(r.lastPid[:0], pid...)
	r.lastTid = append(r.lastTid[:0], tid...)
	r.lastThread = t
	return t
}

func (r *reader) apply(e *ev, data []byte, off int64, idx int, path string) error {
	if e.isWeb {
		r.web = true
	}
	r.bounds(e)
	if e.hasName && e.args1 > e.args0 {
		switch r.b.P.Strings[e.name] {
		case "TracingStartedInBrowser", "FrameCommittedInBrowser":
			r.pageURLs(data[e.args0:e.args1])
		}
	}
	if e.isProfile {
		evPath := fmt.Sprintf("%s[%d]", path, idx)
		if path == "$" {
			evPath = fmt.Sprintf("[%d]", idx)
		}
		return r.applyProfile(e, data, off, evPath)
	}
	switch e.ph {
	case 'X', 'I', 'B':
		t := r.thread(e.pid, e.tid)
		ph := e.ph
		dur := e.dur
		if ph == 'B' {
			dur = 0 // its E gives it one
		}
		if r.deferEvents && !r.threads[t].sampled {
			// Its offset only (readAgain); a B event is still matched.
			if ph == 'B' {
				r.open = append(r.open, openB{event: -1, name: e.name, cat: e.cat, hasName: e.hasName, hasCat: e.hasCat, deferred: true, off: off, ts: e.ts})
			}
			for int(t) >= len(r.deferred) {
				r.deferred = append(r.deferred, nil)
			}
			r.deferred[t] = append(r.deferred[t], off)
			return nil
		}
		// An I event keeps a dur it carries: DevTools' entries and treify
		// use it as any event's (the enclosing call's self loses it).
		if ph == 'B' {
			ph = 'X'
			r.open = append(r.open, openB{event: r.events.len(), name: e.name, cat: e.cat, hasName: e.hasName, hasCat: e.hasCat})
		}
		r.saveArgs(data, e)
		r.keep(r.raw(t, e.name, e.cat, ph, e.ts, dur), e.traceID)
	case 'E':
		if len(r.open) == 0 {
			r.diag.Add("unmatched-end", 1, "E events with no open B event were ignored")
			return nil
		}
		b := r.open[len(r.open)-1]
		r.open = r.open[:len(r.open)-1]
		if b.hasName != e.hasName || b.name != e.name || b.hasCat != e.hasCat || b.cat != e.cat {
			r.diag.Add("mismatched-end", 1, "E events named differently from the last open B event were ignored; that B event keeps no duration (as in DevTools)")
			return nil
		}
		if b.event >= 0 {
			be := r.events.at(b.event)
			be.dur = e.ts - be.ts
		} else if b.deferred {
			if r.deferredDur == nil {
				r.deferredDur = map[int64]float64{}
			}
			r.deferredDur[b.off] = e.ts - b.ts
		}
	case 'M':
		if !e.hasName || e.args1 <= e.args0 {
			return nil
		}
		switch r.b.P.Strings[e.name] {
		case "thread_name", "process_name":
			name, err := argsName(data[e.args0:e.args1])
			if err != nil || name == nil {
				return nil
			}
			if r.b.P.Strings[e.name] == "thread_name" {
				t := r.thread(e.pid, e.tid)
				r.threads[t].name, r.threads[t].hasName = string(name), true
			} else {
				r.procName[r.b.InternBytes(e.pid)] = string(name)
			}
		}
	}
	return nil
}

// bounds folds e into DevTools' trace bounds (MetaHandler.handleEvent):
// every B, E, X and I event with a non-zero ts whose name does not end in
// "::UMA" extends them to its ts and its ts+dur (dur counts whatever the
// phase, 0 when absent); a TracingStartedInBrowser event sets the start.
// DevTools takes a missing ts as NaN, which spoils its bounds; here it
// is 0 and ignored.
func (r *reader) bounds(e *ev) {
	switch e.ph {
	case 'B', 'E', 'X', 'I':
		if e.ts == 0 || e.hasName && r.isUMA(e.name) {
			break
		}
		r.boundsMin = min(r.boundsMin, e.ts)
		r.boundsMax = max(r.boundsMax, e.ts+e.dur)
	}
	if e.hasName && r.b.P.Strings[e.name] == "TracingStartedInBrowser" {
		r.started, r.hasStarted = e.ts, true
	}
}

func (r *reader) isUMA(name profile.StringID) bool {
	if int(name) >= len(r.uma) {
		r.uma = append(r.uma, make([]int8, int(name)+1-len(r.uma))...)
	}
	if r.uma[name] == 0 {
		r.uma[name] = -1
		if strings.HasSuffix(r.b.P.Strings[name], "::UMA") {
			r.uma[name] = 1
		}
	}
	return r.uma[name] == 1
}

// saveArgs records the raw args of the event about to be kept (KeepArgs).
func (r *reader) saveArgs(data []byte, e *ev) {
	if !r.keepArgs || e.args1 <= e.args0 {
		return
	}
	if r.args == nil {
		r.args = map[int][]byte{}
	}
	r.args[int(r.events.len())] = bytes.Clone(data[e.args0:e.args1])
}

// keep appends an event and its sample trace id, if any.
func (r *reader) keep(e rawEvent, traceID int64) {
	if traceID != 0 {
		if r.traceIDs == nil {
			r.traceIDs = map[int]int64{}
		}
		r.traceIDs[int(r.events.len())] = traceID
	}
	r.events.add(e)
	r.threads[e.th()].kept++
}

// eventStore holds events in fixed-size blocks: a trace can have tens of
// millions, and growing one slice would copy them again and again and need
// twice their memory at each step.
type eventStore struct {
	blocks [][]rawEvent
	n      int32
}

const eventBlock = 1 << 16

func (s *eventStore) len() int32 { return s.n }

func (s *eventStore) add(e rawEvent) {
	if s.n%eventBlock == 0 {
		s.blocks = append(s.blocks, make([]rawEvent, 0, eventBlock))
	}
	b := &s.blocks[len(s.blocks)-1]
	*b = append(*b, e)
	s.n++
}

func (s *eventStore) at(i int32) *rawEvent { return &s.blocks[i/eventBlock][i%eventBlock] }

// all iterates over the events in order.
func (s *eventStore) all(yield func(int, *rawEvent) bool) {
	i := 0
	for _, b := range s.blocks {
		for k := range b {
			if !yield(i, &b[k]) {
				return
			}
			i++
		}
	}
}

// argsName returns args.name of a metadata event.
// pageURLs records the page URL of each renderer process from the args of
// TracingStartedInBrowser (data.frames[]) or FrameCommittedInBrowser (data):
// a frame without a parent is its process's page (the last one committed
// wins); a process with only subframes (an out-of-process iframe) is named
// by its first. Malformed args are ignored (the URL is only a label).
func (r *reader) pageURLs(args []byte) {
	data, _, ok := member(args, "data")
	if !ok {
		return
	}
	frame := func(obj []byte) {
		s := jsonscan.New(obj)
		if s.BeginObject() != nil {
			return
		}
		var url, pid []byte
		parent := false
		for first := true; ; first = false {
			key, ok, err := s.NextKey(first)
			if err != nil || !ok {
				break
			}
			switch string(key) {
			case "url":
				if s.Kind() == '"' {
					url, _ = s.String()
					url = append([]byte(nil), url...)
					continue
				}
			case "processId":
				if n, err := s.Int(); err == nil {
					pid = strconv.AppendInt(nil, n, 10)
					continue
				}
			case "parent":
				parent = !s.Null()
				if parent {
					s.Skip()
				}
				continue
			}
			if s.Skip() != nil {
				return
			}
		}
		if pid == nil || len(url) == 0 {
			return
		}
		if r.procURL == nil {
			r.procURL, r.procMain = map[profile.StringID]string{}, map[profile.StringID]bool{}
		}
		// A process's main frame names it; an out-of-process iframe's
		// process is named by its first frame.
		k := r.b.InternBytes(pid)
		if !parent || !r.procMain[k] && r.procURL[k] == "" {
			r.procURL[k] = string(url)
			r.procMain[k] = r.procMain[k] || !parent
		}
	}
	if frames, _, ok := member(data, "frames"); ok {
		s := jsonscan.New(frames)
		if s.BeginArray() != nil {
			return
		}
		for first := true; ; first = false {
			ok, err := s.NextElem(first)
			if err != nil || !ok {
				return
			}
			start := s.Offset()
			if s.Skip() != nil {
				return
			}
			frame(frames[start:s.Offset()])
		}
	}
	frame(data)
}

func argsName(args []byte) ([]byte, error) {
	s := jsonscan.New(args)
	if err := s.BeginObject(); err != nil {
		return nil, err
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return nil, err
		}
		if string(key) == "name" && s.Kind() == '"' {
			return s.String()
		}
		if err := s.Skip(); err != nil {
			return nil, err
		}
	}
}

func (r *reader) prof(pid, id []byte, event int) *profState {
	k := profKey{r.b.InternBytes(pid), r.b.InternBytes(id)}
	p, ok := r.profOf[k]
	if !ok {
		p = &profState{key: k, event: event}
		r.profOf[k] = p
		r.profs = append(r.profs, p)
	}
	return p
}

// applyProfile handles Profile, ProfileChunk and CpuProfile events as the
// DevTools SamplesHandler does.
func (r *reader) applyProfile(e *ev, data []byte, off int64, path string) error {
	name := r.b.P.Strings[e.name]
	if name == "CpuProfile" && e.ph != 'X' {
		// Chrome 65/66 timelines write the whole profile in one instant
		// (ph "I") CpuProfile event. DevTools reads only X ones; speedscope
		// and the Firefox Profiler read these, and so does jsprof (the
		// event itself is not kept as an entry).
		r.diag.Add("cpuprofile-not-complete", 1, "CpuProfile events whose phase is not X (Chrome 65/66 timelines) were read as their thread's profile; DevTools ignores them")
	}
	if name == "CpuProfile" && e.ph == 'X' {
		// DevTools treats the X event as an entry of its thread too.
		t := r.thread(e.pid, e.tid)
		r.markSampled(e.pid, e.tid)
		r.saveArgs(data, e)
		r.keep(r.raw(t, e.name, e.cat, 'X', e.ts, e.dur), e.traceID)
	}
	id := e.id
	if !e.hasID {
		id = []byte("undefined")
	}
	p := r.prof(e.pid, id, r.nEvents-1)
	if p.asm == nil {
		p.asm = v8.NewAssembler(r.b)
	}
	args := data[e.args0:e.args1]
	argsOff := off + int64(e.args0)
	switch name {
	case "Profile":
		p.start = e.ts
		p.tid, p.hasThread = r.b.InternBytes(e.tid), true
		r.markSampled(e.pid, e.tid)
		if src := dataSource(args); src != "" {
			p.source = src
		}
		return nil
	case "CpuProfile":
		p.tid, p.hasThread = r.b.InternBytes(e.tid), true
		r.markSampled(e.pid, e.tid)
		sub, subOff, ok := member(args, "data", "cpuProfile")
		if !ok {
			return nil
		}
		prefix := path + ".args.data.cpuProfile."
		nodes, _, deltas := p.asm.Counts()
		start, end, err := p.asm.ReadProfile(sub, argsOff+int64(subOff), prefix)
		if err != nil {
			return underPath(err, prefix[:len(prefix)-1])
		}
		deltasOff := int64(-1)
		if _, k, ok := member(sub, "timeDeltas"); ok {
			deltasOff = argsOff + int64(subOff+k)
		}
		p.parts = append(p.parts, part{nodes: nodes, deltas: deltas, event: path, legacy: true, deltasOff: deltasOff})
		p.start, p.end = start, end
		return nil
	}
	// ProfileChunk.
	nodes, _, deltas := p.asm.Counts()
	var c *chunk
	var err error
	if e.pre != nil {
		c, err = e.pre.finish(args, argsOff, path+".args.", p.asm)
	} else {
		c, err = readChunk(args, argsOff, path+".args.", p.asm)
	}
	if err != nil {
		return err
	}
	p.parts = append(p.parts, part{nodes: nodes, deltas: deltas, event: path, deltasOff: c.deltasOff})
	switch {
	case c.samples != nil:
		p.asm.AddSamples(c.samples)
	case c.samples32 != nil:
		p.asm.AddSamples32(c.samples32)
	default:
		p.asm.AddSamples16(c.samples16)
	}
	switch {
	case c.deltas != nil:
		p.asm.AddTimeDeltas(c.deltas)
		for _, d := range c.deltas {
			p.deltaSum += float64(d) / 1000 // µs, as DevTools adds them
		}
	case c.deltas32 != nil:
		p.asm.AddTimeDeltas32(c.deltas32)
		for _, d := range c.deltas32 {
			p.deltaSum += float64(d) // whole µs: the same sum
		}
	default:
		p.asm.AddTimeDeltas16(c.deltas16)
		for _, d := range c.deltas16 {
			p.deltaSum += float64(d)
		}
	}
	n := len(c.samples) + len(c.samples32) + len(c.samples16)
	if c.lines16 != nil {
		p.asm.AddLines16(c.lines16, c.cols, n)
	} else {
		p.asm.AddLines(c.lines, c.cols, n)
	}
	for _, t := range c.traceIDs {
		p.asm.AddTraceID(t[0], t[1])
	}
	_, ns, nd := p.asm.Counts()
	if ns != nd {
		if !p.broken {
			r.diag.Add("chunk-length-mismatch", 1, "a profile's samples and timeDeltas differ in length; DevTools stops reading its chunks' end time and source")
		}
		p.broken = true
		return nil
	}
	if p.end == 0 {
		p.end = p.start + p.deltaSum // DevTools: the first chunk's deltas only
	}
	if c.hasEnd {
		p.endTime, p.hasEndTime = c.endTime, true
	}
	if c.source != "" {
		p.source = c.source
	}
	return nil
}

// markSampled records that the thread pid, tid may have a profile: its
// events are no longer deferred. Both are interned already (the profile's
// key and thread), so the string table is unchanged.
func (r *reader) markSampled(pid, tid []byte) {
	if !r.deferEvents {
		return
	}
	k := threadKey{r.b.InternBytes(pid), r.b.InternBytes(tid)}
	if r.sampledKeys == nil {
		r.sampledKeys = map[threadKey]bool{}
	}
	r.sampledKeys[k] = true
	if t, ok := r.threadOf[k]; ok {
		r.threads[t].sampled = true
	}
}

// deferEventsBytes is the input size from which events are deferred (a
// variable for tests). Below it, reading the sampled thread's events again
// (Chrome writes its Profile events last, so all of them are) costs time
// the memory saved does not repay: on the four 29–44 MB DevTools traces of
// BENCHMARKS.md, 10% more time (geomean; web-dev +17%) for 9% less peak
// memory.
var deferEventsBytes = 256 << 20

// readAgainCount counts the deferred events read again (for tests).
var readAgainCount atomic.Int64

// readAgain reads the deferred event at off of reader thread t again, as
// apply would have kept it: the event, its sample trace id and its raw
// args (KeepArgs).
func (r *reader) readAgain(off int64, t int32) (rawEvent, int64, []byte, error) {
	readAgainCount.Add(1)
	var e ev
	r.s.Reset(r.buf[off:r.end])
	if err := r.parseEvent(&e); err != nil {
		return rawEvent{}, 0, nil, fmt.Errorf("internal error: reading the event at offset %d again: %w", off, err)
	}
	ph, dur := e.ph, e.dur
	if ph == 'B' {
		ph, dur = 'X', r.deferredDur[off] // 0 unless an E closed it
	}
	var args []byte
	if r.keepArgs && e.args1 > e.args0 {
		args = bytes.Clone(r.buf[off+int64(e.args0) : off+int64(e.args1)])
	}
	return r.raw(t, e.name, e.cat, ph, e.ts, dur), e.traceID, args, nil
}

var validSources = []string{"Inspector", "SelfProfiling", "Internal"}

func dataSource(args []byte) string {
	sub, _, ok := member(args, "data", "source")
	if !ok {
		return ""
	}
	s := jsonscan.New(sub)
	b, err := s.String()
	if err != nil || !slices.Contains(validSources, string(b)) {
		return ""
	}
	return string(b)
}

// member returns the raw bytes of obj.k1.k2… and their offset in obj.
func member(obj []byte, keys ...string) ([]byte, int, bool) {
	s := jsonscan.New(obj)
	for _, k := range keys {
		if s.BeginObject() != nil {
			return nil, 0, false
		}
		found := false
		for first := true; ; first = false {
			key, ok, err := s.NextKey(first)
			if err != nil || !ok {
				return nil, 0, false
			}
			if string(key) == k {
				found = true
				break
			}
			if s.Skip() != nil {
				return nil, 0, false
			}
		}
		if !found {
			return nil, 0, false
		}
	}
	s.Peek()
	start := s.Offset()
	if s.Skip() != nil {
		return nil, 0, false
	}
	return obj[start:s.Offset()], int(start), true
}

type chunk struct {
	// The samples' node ids in the narrowest of samples16, samples32 and
	// samples that holds them all (Chrome's fit 16 bits for a profile of
	// fewer than 65,536 nodes); the time deltas as whole µs in deltas16
	// or deltas32 while every one is and fits, else as ns in deltas; the
	// lines in lines16 while each fits. All the profile's chunks are held
	// until it is assembled: 6 bytes a sample rather than 12 (web-dev's
	// 388 k samples: 2.3 MB), and the profile's times are then made over
	// them in 2 or 4 bytes (v8.Assembler.AddTimeDeltas16).
	samples     []int64
	samples32   []int32
	samples16   []uint16
	deltas      []int64 // ns
	deltas32    []int32 // µs
	deltas16    []int16 // µs
	deltasOff   int64   // offset of the timeDeltas array, or −1
	lines, cols []int32
	lines16     []uint16
	traceIDs    [][2]int64
	source      string
	endTime     float64 // data.endTime (Node writes it in the last chunk)
	hasEnd      bool
	// Read ahead (preChunk): where each data.cpuProfile.nodes value
	// starts, its nodes not yet read.
	nodesAt []int64
}

// widen returns the integers of v16 or v32, whichever holds them, in 64
// bits times scale.
func widen[T int16 | uint16](v16 []T, v32 []int32, scale int64) []int64 {
	w := make([]int64, 0, len(v16)+len(v32))
	for _, x := range v16 {
		w = append(w, int64(x)*scale)
	}
	return jsonscan.AppendScaled(w, v32, scale)
}

// preChunk reads a ProfileChunk's args ahead of the main reader, on the
// split's worker (split.go), but for its nodes, whose strings go into the
// profile's string table in order: it notes where they are, for finish.
// Nil if the args are not read as readChunk reads them, without error:
// the main reader then reads them whole.
func preChunk(args []byte) *chunk {
	c, err := readChunk(args, 0, "", nil)
	if err != nil {
		return nil
	}
	return c
}

// finish reads the nodes of a chunk read ahead by preChunk, as readChunk
// would have, and makes its offsets the file's.
func (c *chunk) finish(args []byte, off int64, path string, asm *v8.Assembler) (*chunk, error) {
	for _, at := range c.nodesAt {
		if err := asm.ReadNodes(jsonscan.New(args[at:]), off+at, path+"data.cpuProfile."); err != nil {
			return nil, err
		}
	}
	if c.deltasOff >= 0 {
		c.deltasOff += off
	}
	return c, nil
}

// readChunk reads args of a ProfileChunk: data.cpuProfile.{nodes, samples,
// trace_ids}, data.timeDeltas, data.lines, data.columns, data.source. With
// a nil asm, the nodes are skipped and noted (preChunk).
func readChunk(args []byte, off int64, path string, asm *v8.Assembler) (*chunk, error) {
	c := &chunk{deltasOff: -1}
	s := jsonscan.New(args)
	fail := func(p string, err error) error {
		pe := jsonscan.Locate(err, s.Offset(), path+p)
		pe.Offset += off
		return pe
	}
	// args.data, read in place (the event was read whole, so args is
	// valid JSON): the first "data" member, as member finds it.
	if s.BeginObject() != nil {
		return c, nil
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return c, nil
		}
		if string(key) == "data" {
			break
		}
		if s.Skip() != nil {
			return c, nil
		}
	}
	data := args
	if s.Null() {
		return c, nil
	}
	if err := s.BeginObject(); err != nil {
		return nil, fail("data", err)
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return nil, fail("data", err)
		}
		if !ok {
			return c, nil
		}
		k := string(key)
		switch k {
		case "cpuProfile":
			if s.Null() {
				continue
			}
			if err := s.BeginObject(); err != nil {
				return nil, fail("data.cpuProfile", err)
			}
			for f := true; ; f = false {
				key2, ok, err := s.NextKey(f)
				if err != nil {
					return nil, fail("data.cpuProfile", err)
				}
				if !ok {
					break
				}
				switch string(key2) {
				case "nodes":
					if s.Null() {
						continue
					}
					if asm == nil {
						c.nodesAt = append(c.nodesAt, s.Offset())
						if err := s.Skip(); err != nil {
							return nil, err
						}
						continue
					}
					if err := asm.ReadNodes(s, off, path+"data.cpuProfile."); err != nil {
						return nil, err
					}
				case "samples":
					if s.Null() {
						continue
					}
					if c.samples == nil && c.samples16 == nil && c.samples32 == nil {
						at := s.Offset()
						v16, v32, fits, err := jsonscan.Ints16[uint16](s, nil)
						if err == nil && fits {
							c.samples16, c.samples32 = v16, v32
							continue
						}
						// An id beyond int32, or an error: read again as
						// int64, which reports the error as before.
						s.SetOffset(at)
					} else if c.samples == nil {
						// A second samples member: both in 64 bits.
						c.samples = widen(c.samples16, c.samples32, 1)
						c.samples16, c.samples32 = nil, nil
					}
					if c.samples, err = s.Ints(c.samples); err != nil {
						return nil, fail("data.cpuProfile.samples", err)
					}
				case "trace_ids":
					if err := readTraceIDs(s, c); err != nil {
						return nil, fail("data.cpuProfile.trace_ids", err)
					}
				default:
					if err := s.Skip(); err != nil {
						return nil, fail("data.cpuProfile."+string(key2), err)
					}
				}
			}
		case "endTime":
			if s.Kind() == '0' {
				v, err := s.Float()
				if err != nil {
					return nil, fail("data.endTime", err)
				}
				if v > -maxMicros && v < maxMicros { // else ignored: a label, not the analyses' end
					c.endTime, c.hasEnd = v, true
				}
				continue
			}
			if err := s.Skip(); err != nil {
				return nil, fail("data.endTime", err)
			}
		case "timeDeltas":
			if s.Null() {
				continue
			}
			arr := s.Offset()
			if c.deltas == nil && c.deltas16 == nil && c.deltas32 == nil {
				d16, d32, fits, err := jsonscan.Ints16[int16](s, nil)
				if err == nil && fits {
					c.deltas16, c.deltas32 = d16, d32
					c.deltasOff = off + arr
					continue
				}
				// A fraction, a delta beyond int32 µs, or an error: read
				// again as ns, which reports the error as before.
				s.SetOffset(arr)
			} else if c.deltas == nil {
				// A second timeDeltas member: both as ns.
				c.deltas = widen(c.deltas16, c.deltas32, 1000)
				c.deltas16, c.deltas32 = nil, nil
			}
			n := len(c.deltas)
			// µs, read as ns: integers as Chrome writes them, or any
			// number (jsprof's own traces keep ns as µs fractions, and
			// DevTools adds whatever number it finds).
			if err := s.BeginArray(); err != nil {
				return nil, fail("data.timeDeltas", err)
			}
			for first := true; ; first = false {
				ok, err := s.NextElem(first)
				if err != nil {
					return nil, fail("data.timeDeltas", err)
				}
				if !ok {
					break
				}
				i := len(c.deltas) - n
				ns, err := v8.ReadMicros(s)
				if err != nil {
					if _, ok := err.(*v8.MicrosRangeError); ok {
						return nil, &profile.ParseError{Offset: off + elemOffset(data, arr, i),
							Path: path + "data.timeDeltas[" + strconv.Itoa(i) + "]", Err: err}
					}
					return nil, fail("data.timeDeltas", err)
				}
				c.deltas = append(c.deltas, ns)
			}
			c.deltasOff = off + arr
		case "lines", "columns":
			if s.Null() {
				continue
			}
			// Lines in 16 bits while they fit, columns in 32 (over 65,535
			// in the one-line functions of minified code).
			at := s.Offset()
			var out16 []uint16
			var out []int32
			var fits bool
			var err error
			if k == "lines" {
				out16, out, fits, err = jsonscan.Ints16[uint16](s, nil)
			} else {
				out, fits, err = s.Ints32(nil)
			}
			if err != nil || !fits {
				// A value beyond int32 (clamped), or an error: read
				// again as int64, which reports the error as before.
				s.SetOffset(at)
				v, err := s.Ints(nil)
				if err != nil {
					return nil, fail("data."+k, err)
				}
				out16, out = nil, make([]int32, len(v))
				for i, x := range v {
					out[i] = int32(max(min(x, math.MaxInt32), math.MinInt32))
				}
			}
			if k == "lines" {
				c.lines, c.lines16 = out, out16
			} else {
				c.cols = out
			}
		case "source":
			if s.Kind() == '"' {
				b, err := s.String()
				if err != nil {
					return nil, fail("data.source", err)
				}
				if slices.Contains(validSources, string(b)) {
					c.source = string(b)
				}
				continue
			}
			if err := s.Skip(); err != nil {
				return nil, fail("data.source", err)
			}
		default:
			if err := s.Skip(); err != nil {
				return nil, fail("data."+k, err)
			}
		}
	}
}

// readTraceIDs reads {"<trace id>": nodeId, …}. A key that JavaScript could
// never look up (not the decimal form of a number) is ignored.
func readTraceIDs(s *jsonscan.Scanner, c *chunk) error {
	if s.Null() {
		return nil
	}
	if err := s.BeginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return err
		}
		k := string(key)
		node, err := s.Int()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(k, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 || strconv.FormatFloat(f, 'f', -1, 64) != k {
			continue
		}
		c.traceIDs = append(c.traceIDs, [2]int64{int64(f), node})
	}
}

func utf8Valid(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return utf8.Valid(b)
		}
	}
	return true
}

// elemOffset returns the offset in data of element i of the array at off
// (off itself if the array is shorter).
func elemOffset(data []byte, off int64, i int) int64 {
	s := jsonscan.New(data)
	s.SetOffset(off)
	if s.BeginArray() != nil {
		return off
	}
	for k := 0; ; k++ {
		if ok, err := s.NextElem(k == 0); err != nil || !ok {
			return off
		}
		s.Peek()
		if k == i {
			return s.Offset()
		}
		if s.Skip() != nil {
			return off
		}
	}
}

// underPath puts the path of an error of v8.Assembler.ReadProfile, which is
// relative to the cpuProfile object ("$", "$.x" or "x" for its members),
// under that object's path.
func underPath(err error, path string) error {
	pe, ok := err.(*profile.ParseError)
	if !ok || strings.HasPrefix(pe.Path, path) {
		return err
	}
	cp := *pe
	switch {
	case pe.Path == "$" || pe.Path == "":
		cp.Path = path
	case strings.HasPrefix(pe.Path, "$."):
		cp.Path = path + pe.Path[1:]
	default:
		cp.Path = path + "." + pe.Path
	}
	return &cp
}

// locate rewrites the path of an error of v8.Assembler.Append about node
// or time delta i of the assembled profile (prefix+"nodes[i]…" or
// prefix+"timeDeltas[i]…", i counted across the profile's events) to the
// JSON path of that node or delta in its event, and gives a delta's error,
// which has no offset, that of the event's timeDeltas array.
func (p *profState) locate(err error, prefix string) error {
	pe, ok := err.(*profile.ParseError)
	if !ok {
		return err
	}
	rest, ok := strings.CutPrefix(pe.Path, prefix)
	if !ok {
		return err
	}
	array, rest, ok := strings.Cut(rest, "[")
	if !ok || array != "nodes" && array != "timeDeltas" {
		return err
	}
	num, rest, ok := strings.Cut(rest, "]")
	i, aerr := strconv.Atoi(num)
	if !ok || aerr != nil {
		return err
	}
	first := func(pt *part) int {
		if array == "nodes" {
			return pt.nodes
		}
		return pt.deltas
	}
	// The last event whose first node (delta) is at or before i holds it.
	k := sort.Search(len(p.parts), func(k int) bool { return first(&p.parts[k]) > i }) - 1
	if k < 0 {
		return err
	}
	pt := &p.parts[k]
	nodesPath, deltasPath := pt.paths()
	cp := *pe
	if array == "nodes" {
		cp.Path = fmt.Sprintf("%snodes[%d]%s", nodesPath, i-pt.nodes, rest)
	} else {
		cp.Path = fmt.Sprintf("%stimeDeltas[%d]%s", deltasPath, i-pt.deltas, rest)
		if cp.Offset < 0 {
			cp.Offset = pt.deltasOff
		}
	}
	return &cp
}

// realEnd returns the profile's real end in µs: the endTime its chunks
// give, else the start plus all its time deltas; ok is false for a profile
// DevTools' end stands for (a legacy CpuProfile, or one whose chunks broke).
func (p *profState) realEnd() (end float64, ok bool) {
	if p.broken {
		return 0, false
	}
	for _, pt := range p.parts {
		if pt.legacy {
			return 0, false
		}
	}
	if p.hasEndTime {
		return p.endTime, true
	}
	return p.start + p.deltaSum, true
}

// Package pprof writes and reads pprof profiles (profile.proto, gzipped), the
// format of `go tool pprof`, through github.com/google/pprof/profile; no
// protobuf is written by hand.
//
// Spec: https://github.com/google/pprof/blob/main/proto/profile.proto.
//
// Write maps jsprof's model to pprof as follows:
//
//   - The input is each thread's time as weighted stacks
//     (profile.ThreadStacks), as the analysis session computes them under a
//     view and transforms: the nanoseconds add up to jsprof's self and total
//     times exactly (flat and cum are the self and total of `jsprof top`).
//     A stack with no frames (idle or out-of-view time) is not written.
//   - Sample types are [samples/count, cpu/nanoseconds]; the default is cpu.
//   - One pprof Sample per distinct stack and thread (identical stacks are
//     aggregated): values [number of samples, ns], the ns the stacks'
//     weights and the count the thread's samples (of distinct times) that
//     fall in those stacks' spans; locations leaf first.
//   - One Function per distinct (name, URL, line) and kind: Filename is the
//     file pprof can open (see FileName: a file:// URL becomes its local
//     path, an http(s) URL host and path) and StartLine the 1-based line (0
//     when unknown). Anonymous functions are named "(anonymous)" followed by
//     where they start ("(anonymous) server.js:16", see FuncName), so that
//     pprof, which keys functions by name, keeps them apart. A trace event
//     on the stack (a frame of kind profile.KindEvent, such as Layout or
//     FunctionCall) is a function of its own, with no file.
//   - One Location per jsprof frame, with one Line: the function, the
//     1-based line and the 1-based column (0 when unknown). jsprof lines and
//     columns are 0-based with −1 for unknown; pprof's are 1-based with 0.
//   - Source lines: when Options.Lines gives a function's per-line self
//     time (`jsprof top --lines`: positionTicks, or a trace's per-sample
//     lines), each sample the function ends is split over those lines in
//     proportion to their self times, the leaf being a Location of the
//     function at that line (column 0): `go tool pprof -list` then shows
//     each line's flat time as `top --lines` gives it, and the function's
//     flat and cum are unchanged. Self time the lines do not account for
//     (rounding, nodes without ticks) stays at the frame's own Location,
//     the function's first line. A frame that is not the leaf keeps its own
//     Location too: V8 records no call sites, so in -list a function's
//     first line holds the cum time of its callees. pprof lists a function
//     from its first line: the lines V8 gives code inlined from a function
//     defined above it count in its flat time but are not shown.
//   - Labels: "thread" is the thread's name (else "tid N") on every sample;
//     when several threads are written, numeric labels "pid" and "tid" say
//     which thread.
//   - PeriodType is cpu/nanoseconds and Period the median interval between
//     the written threads' samples; DurationNanos is the span the stacks
//     cover (the window or range, idle time included). TimeNanos is 0,
//     because V8 and trace times are monotonic clocks (TimeTicks), not Unix
//     time.
//
// In pprof's terms, jsprof's self time is "flat" and its total time "cum".
//
// Parse reads any pprof profile (gzipped or not) back into the model; see
// Parse for how it lays out sample times, which pprof does not record.
package pprof

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	neturl "net/url"
	"path"
	"slices"
	"strings"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/internal/chunked"
	"github.com/jsprof/jsprof/profile"
)

// Options controls Write. The zero value is the default. The threads, view
// and transforms are those the stacks were computed under.
type Options struct {
	// View names the view of the stacks; a name other than "" and "all"
	// is written in a comment ("view: js").
	View string
	// Lines, if not nil, gives per thread (by ThreadID) the self time of
	// functions' source lines, for the stacks of that thread: see the
	// package documentation. nil writes one Location per frame.
	Lines map[profile.ThreadID][]LineSelf
}

// LineSelf is the self time of one source line of a function, as `jsprof
// top --lines` computes it.
type LineSelf struct {
	Frame profile.FrameID // the function, as the thread's stacks name it
	Line  int32           // 1-based
	Self  profile.Time    // ns
}

// funcKey identifies a pprof Function.
type funcKey struct {
	name, url profile.StringID
	line      int32
	event     bool
}

// writer builds a pprof profile from weighted stacks.
type writer struct {
	p     *profile.Profile
	out   *pprofile.Profile
	funcs map[funcKey]*pprofile.Function
	locs  []*pprofile.Location // by FrameID; nil until used
	// samples are the pprof Samples, kept as sampleRec until they are
	// encoded (encode.go); sampleIndex holds each one's index by its key
	// (thread and locations); last is the index of the one added to last.
	samples     chunked.Slice[sampleRec]
	sampleIndex map[string]int
	last        int
	key         []byte
	stack       []*pprofile.Location
	// ids holds the location ids (leaf first) of the samples whose stack
	// came as frames, in chunks of at least idChunk (one slice grown by
	// append copied it whole, in a copy the collector has to wait for).
	ids [][]uint64
	// leaf holds, for each sample (by index), the written thread and
	// frame that end it.
	leaf chunked.Slice[leafOf]
	// lineLocs holds the Locations of frames at given lines.
	lineLocs map[lineLoc]*pprofile.Location
	// byPath holds the sample of each (written thread, Stack.Path) seen.
	byPath map[[2]int32]int
	frames []profile.FrameID // a stack's frames, when they come from its path
	// threads holds each written thread's labels and paths.
	threads []threadOut

	// For stacks given as paths, a path's frames are told by a number
	// instead of a key of all its locations (O(depth) bytes hashed and
	// held per path: 54 MB for the many-nodes shape). The numbers of the
	// thread being written are the nodes of a tree of frames: number 0 is
	// the empty stack, and a number's children (numKid, numNext; frame
	// numFrame) are found by a scan of up to fewKids of them, or in numMap;
	// two paths of the same frames get the same number. seqOf is the
	// number of each path of the thread (0: not yet known), sampleOf the
	// sample of each number, plus one (0: none yet).
	numKid, numNext, numKids []int32
	numFrame                 []profile.FrameID
	numMap                   map[[2]int32]int32
	seqOf, sampleOf          []int32
	walk                     []int32
	// located tells the paths of the thread whose frames all have their
	// Location.
	located []bool
}

// idChunk is the length of a chunk of wr.ids.
const idChunk = 1 << 16

// fewKids is how many children of a number number scans before it looks
// them up in a map.
const fewKids = 16

// sampleRec is a pprof Sample before it is encoded: its locations are
// those of a path of its thread (path ≥ 0), or ids[chunk][at:at+n] (leaf
// first);
// line, if not 0, is the Location that replaces the leaf's (a sample split
// over a frame's lines). Held as pprofile.Samples, the locations of the
// many-nodes shape's 350 k paths (62 deep on average) were 173 MB of
// pointers for the collector to scan, copied again to be encoded.
type sampleRec struct {
	ti    int32
	path  int32
	chunk int32
	at, n int32
	line  uint64
	value [2]int64
}

// threadOut is a written thread's labels and paths.
type threadOut struct {
	name  string
	num   map[string][]int64
	paths *profile.PathTree
}

// leafOf is a frame of a written thread.
type leafOf struct {
	ti    int
	frame profile.FrameID
}

// lineLoc is a frame at a 1-based line.
type lineLoc struct {
	frame profile.FrameID
	line  int32
}

// Write writes the stacks of p's threads as a gzipped pprof profile (see
// the package documentation for the mapping). p is the profile the stacks'
// frames and threads index (for a session, its Profile, which has the
// trace events' frames); it is not modified.
func Write(w io.Writer, p *profile.Profile, stacks []profile.ThreadStacks, opts Options) error {
	wr, err := convert(p, stacks, opts)
	if err != nil {
		return err
	}
	// The profile without its samples (they are checked as they are made).
	if err := wr.out.CheckValid(); err != nil {
		return fmt.Errorf("building pprof profile: %w", err)
	}
	if err := wr.encode(w); err != nil {
		return fmt.Errorf("writing pprof profile: %w", err)
	}
	return nil
}

// convert builds the pprof profile, its samples kept apart (wr.samples).
func convert(p *profile.Profile, stacks []profile.ThreadStacks, opts Options) (*writer, error) {
	for _, ts := range stacks {
		if ts.Thread < 0 || int(ts.Thread) >= len(p.Threads) {
			return nil, fmt.Errorf("no thread %d; the profile has %d", ts.Thread, len(p.Threads))
		}
	}
	wr := &writer{
		p: p,
		out: &pprofile.Profile{
			SampleType:        []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			DefaultSampleType: "cpu",
			PeriodType:        &pprofile.ValueType{Type: "cpu", Unit: "nanoseconds"},
			Comments:          []string{"source format: " + p.Format},
		},
		locs:        make([]*pprofile.Location, len(p.Frames)),
		funcs:       map[funcKey]*pprofile.Function{},
		sampleIndex: map[string]int{},
		lineLocs:    map[lineLoc]*pprofile.Location{},
	}
	if opts.View != "" && opts.View != "all" {
		wr.out.Comments = append(wr.out.Comments, "view: "+opts.View)
	}
	var series []profile.Times // each thread's sample times, for the period
	var start, end profile.Time
	spanned := false
	for ti, ts := range stacks {
		th := &p.Threads[ts.Thread]
		times := p.Samples.Time.Slice(int(th.Samples.Start), int(th.Samples.End)) // sorted
		series = append(series, times)
		name := th.Name
		if name == "" {
			name = fmt.Sprintf("tid %d", th.TID)
		}
		var num map[string][]int64
		if len(stacks) > 1 {
			num = map[string][]int64{"pid": {th.PID}, "tid": {th.TID}}
		}
		wr.threads = append(wr.threads, threadOut{name: name, num: num, paths: ts.Paths}) // by ti
		if ts.Stacks == nil {
			continue
		}
		wr.seqOf, wr.located = wr.seqOf[:0], wr.located[:0]
		wr.numKid, wr.numNext, wr.numKids = append(wr.numKid[:0], 0), append(wr.numNext[:0], 0), append(wr.numKids[:0], 0)
		wr.numFrame, wr.sampleOf = append(wr.numFrame[:0], -1), append(wr.sampleOf[:0], 0)
		clear(wr.numMap)
		byNumber := -1        // unknown until the first stack
		next := 0             // the first sample time not yet passed
		cur := times.Cursor() // the times in order (Times.At is not inlined)
		for s := range ts.Stacks {
			if s.Weight <= 0 {
				continue
			}
			from, to := s.Time, s.Time+s.Weight
			if !spanned || from < start {
				start = from
			}
			if !spanned || to > end {
				end = to
			}
			spanned = true
			// The samples of distinct times in [from, to).
			for next < times.Len() && cur.At(next) < from {
				next++
			}
			var count int64
			for next < times.Len() && cur.At(next) < to {
				if next == 0 || cur.At(next) != cur.At(next-1) {
					count++
				}
				next++
			}
			if len(s.Frames) == 0 && (ts.Paths == nil || s.Path <= 0) {
				continue // idle or out-of-view time
			}
			// A thread whose first stack is a path is written by numbers
			// (see numKid), every stack of it; else by keys.
			// Frames given with Paths are those of the path.
			isPath := ts.Paths != nil && s.Path > 0
			if byNumber < 0 {
				byNumber = 0
				if isPath {
					byNumber = 1
				}
			}
			if byNumber == 0 && s.Path > 0 {
				// A path seen before: no key to build (millions of stacks,
				// thousands of paths).
				if i, ok := wr.byPath[[2]int32{int32(ti), s.Path}]; ok {
					wr.addTo(i, count, s.Weight)
					continue
				}
			}
			var err error
			switch {
			case byNumber == 1 && isPath:
				err = wr.addPath(ti, ts.Paths, s.Path, count, s.Weight)
			case byNumber == 1:
				if len(s.Frames) > 0 {
					err = wr.addNumbered(ti, s.Frames, -1, -1, count, s.Weight)
				}
			default:
				wr.frames = ts.StackFrames(s, wr.frames)
				if len(wr.frames) > 0 {
					err = wr.add(ti, wr.frames, -1, count, s.Weight, true)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("thread %d: %w", ts.Thread, err)
			}
			if byNumber == 0 && s.Path > 0 {
				if wr.byPath == nil {
					wr.byPath = map[[2]int32]int{}
				}
				wr.byPath[[2]int32{int32(ti), s.Path}] = wr.last
			}
		}
	}
	if opts.Lines != nil {
		wr.splitLines(stacks, opts.Lines)
	}
	if median := profile.MedianInterval(series...); median > 0 {
		wr.out.Period = int64(median) // the median positive interval of all threads
	}
	wr.out.DurationNanos = int64(end - start)
	return wr, nil
}

// addPath adds the stack of path p of paths, of the ti'th written thread,
// as add does, with the path's frames told by a number (see numKid)
// instead of a key of its locations.
func (wr *writer) addPath(ti int, paths *profile.PathTree, p int32, count int64, weight profile.Time) error {
	if int(p) >= paths.Len() {
		return fmt.Errorf("stack path %d out of range; the thread has %d", p, paths.Len())
	}
	if len(wr.seqOf) < paths.Len() {
		wr.seqOf = append(wr.seqOf, make([]int32, paths.Len()-len(wr.seqOf))...)
	}
	// The numbers of p and of its ancestors not numbered yet, from the
	// nearest numbered one down (parents come before their children).
	wr.walk = wr.walk[:0]
	for q := p; q > 0 && wr.seqOf[q] == 0; q = paths.Parent[q] {
		if paths.Parent[q] < 0 || paths.Parent[q] >= q {
			return fmt.Errorf("stack path %d has parent %d; parents come first", q, paths.Parent[q])
		}
		wr.walk = append(wr.walk, q)
	}
	for i := len(wr.walk) - 1; i >= 0; i-- {
		q := wr.walk[i]
		wr.seqOf[q] = wr.number(wr.seqOf[paths.Parent[q]], paths.Frame[q])
	}
	n := wr.seqOf[p]
	if i := wr.sampleOf[n]; i > 0 {
		wr.addTo(int(i-1), count, weight)
		return nil
	}
	// A new sample. Its frames get their locations leaf first, as add
	// gives them, up to the nearest path whose frames all have theirs:
	// a cost per path, not per frame.
	if len(wr.located) < paths.Len() {
		wr.located = append(wr.located, make([]bool, paths.Len()-len(wr.located))...)
	}
	for q := p; q > 0 && !wr.located[q]; q = paths.Parent[q] {
		f := paths.Frame[q]
		if f < 0 || int(f) >= len(wr.p.Frames) {
			return fmt.Errorf("stack frame %d out of range; the profile has %d frames", f, len(wr.p.Frames))
		}
		wr.location(f)
		wr.located[q] = true
	}
	wr.newSample(ti, paths.Frame[p], p, count, weight)
	wr.sampleOf[n] = int32(wr.last + 1)
	return nil
}

// number returns the number of the frames numbered parent followed by f.
func (wr *writer) number(parent int32, f profile.FrameID) int32 {
	if wr.numKids[parent] <= fewKids {
		for c := wr.numKid[parent]; c != 0; c = wr.numNext[c] {
			if wr.numFrame[c] == f {
				return c
			}
		}
	} else if c, ok := wr.numMap[[2]int32{parent, int32(f)}]; ok {
		return c
	}
	n := int32(len(wr.numFrame))
	wr.numFrame = append(wr.numFrame, f)
	wr.numKid = append(wr.numKid, 0)
	wr.numNext = append(wr.numNext, wr.numKid[parent])
	wr.numKids = append(wr.numKids, 0)
	wr.sampleOf = append(wr.sampleOf, 0)
	wr.numKid[parent] = n
	switch wr.numKids[parent]++; {
	case wr.numKids[parent] == fewKids+1:
		if wr.numMap == nil {
			wr.numMap = map[[2]int32]int32{}
		}
		for c := n; c != 0; c = wr.numNext[c] {
			wr.numMap[[2]int32{parent, int32(wr.numFrame[c])}] = c
		}
	case wr.numKids[parent] > fewKids+1:
		wr.numMap[[2]int32{parent, int32(f)}] = n
	}
	return n
}

// addNumbered adds the stack of frames numbered n (see numKid), or, with
// n < 0, numbers frames first; frames may be empty when the number has a
// sample already. path is the stack's path of its thread, or −1.
func (wr *writer) addNumbered(ti int, frames []profile.FrameID, n, path int32, count int64, weight profile.Time) error {
	if n < 0 {
		n = 0
		for _, f := range frames {
			n = wr.number(n, f)
		}
	}
	if i := wr.sampleOf[n]; i > 0 {
		wr.addTo(int(i-1), count, weight)
		return nil
	}
	if err := wr.add(ti, frames, path, count, weight, false); err != nil {
		return err
	}
	wr.sampleOf[n] = int32(wr.last + 1)
	return nil
}

// add adds one stack (root first; the frames of the thread's path path,
// or −1) of the ti'th written thread; keyed, it is merged with a sample of
// the same locations by its key, else it is new.
func (wr *writer) add(ti int, frames []profile.FrameID, path int32, count int64, weight profile.Time, keyed bool) error {
	wr.stack = wr.stack[:0]
	wr.key = binary.AppendUvarint(wr.key[:0], uint64(ti))
	for i := len(frames) - 1; i >= 0; i-- {
		f := frames[i]
		if f < 0 || int(f) >= len(wr.p.Frames) {
			return fmt.Errorf("stack frame %d out of range; the profile has %d frames", f, len(wr.p.Frames))
		}
		loc := wr.location(f)
		wr.stack = append(wr.stack, loc)
		if keyed {
			wr.key = binary.AppendUvarint(wr.key, loc.ID)
		}
	}
	if !keyed {
		wr.newSample(ti, frames[len(frames)-1], path, count, weight)
		return nil
	}
	if i, ok := wr.sampleIndex[string(wr.key)]; ok {
		wr.addTo(i, count, weight)
		return nil
	}
	wr.newSample(ti, frames[len(frames)-1], path, count, weight)
	wr.sampleIndex[string(wr.key)] = wr.last
	return nil
}

// newSample adds a sample ending in frame leaf: that of path of the
// thread, or with path −1 of the locations in wr.stack, kept in wr.ids.
func (wr *writer) newSample(ti int, leaf profile.FrameID, path int32, count int64, weight profile.Time) {
	rec := sampleRec{ti: int32(ti), path: path}
	if path < 0 {
		rec.n = int32(len(wr.stack))
		k := len(wr.ids) - 1
		if k < 0 || cap(wr.ids[k])-len(wr.ids[k]) < len(wr.stack) {
			wr.ids = append(wr.ids, make([]uint64, 0, max(idChunk, len(wr.stack))))
			k++
		}
		rec.chunk, rec.at = int32(k), int32(len(wr.ids[k]))
		for _, loc := range wr.stack {
			wr.ids[k] = append(wr.ids[k], loc.ID)
		}
	}
	wr.last = wr.samples.Len()
	wr.samples.Append(rec)
	wr.leaf.Append(leafOf{ti, leaf})
	wr.addTo(wr.last, count, weight)
}

// addTo adds a count and weight to the i'th Sample. (Its leaf's flat
// time, which only splitLines needs, is summed there from the Samples: a
// map updated here, at every stack, was 40% of the conversion of a
// recording of 30 M samples.)
func (wr *writer) addTo(i int, count int64, weight profile.Time) {
	wr.last = i
	smp := wr.samples.Ptr(i)
	smp.value[0] += count
	smp.value[1] += int64(weight)
}

// location returns the Location of frame f, adding it and its Function if
// needed.
func (wr *writer) location(f profile.FrameID) *pprofile.Location {
	if loc := wr.locs[f]; loc != nil {
		return loc
	}
	fr := &wr.p.Frames[f]
	k := funcKey{fr.Name, fr.URL, fr.Line, fr.Kind == profile.KindEvent}
	fn := wr.funcs[k]
	if fn == nil {
		file := FileName(wr.p.Str(fr.URL))
		name := FuncName(wr.p, fr)
		// SystemName stays empty: pprof's demangler takes a name with
		// brackets for C++ when SystemName equals Name, and strips its
		// "parameters" (RegExp: \b(\d+)\b would become RegExp: \b\b).
		fn = &pprofile.Function{
			ID:        uint64(len(wr.out.Function) + 1),
			Name:      name,
			Filename:  file,
			StartLine: oneBased(fr.Line),
		}
		wr.funcs[k] = fn
		wr.out.Function = append(wr.out.Function, fn)
	}
	loc := &pprofile.Location{
		ID:   uint64(len(wr.out.Location) + 1),
		Line: []pprofile.Line{{Function: fn, Line: oneBased(fr.Line), Column: oneBased(fr.Column)}},
	}
	wr.locs[f] = loc
	wr.out.Location = append(wr.out.Location, loc)
	return loc
}

// oneBased converts a 0-based jsprof line or column (−1 unknown) to pprof's
// 1-based form (0 unknown).
func oneBased(x int32) int64 {
	if x < 0 {
		return 0
	}
	return int64(x) + 1
}

// FileName returns the file name Write gives pprof for a frame's URL, one
// that `go tool pprof -list` can open, directly or with -source_path and
// -trim_path:
//
//   - a file:// URL becomes its local path (file:///srv/app/server.js is
//     /srv/app/server.js; file:///C:/app/x.js is C:/app/x.js);
//   - an http(s) URL loses its scheme, query and fragment
//     (https://example.com/static/app.js?v=2 is example.com/static/app.js):
//     pprof looks for such a relative name under each -source_path
//     directory (as `wget -r` lays a site out), strips a -trim_path prefix
//     ("example.com"; pprof splits -trim_path at colons, so a host with a
//     port can't be trimmed) and, with neither, strips everything up to a
//     directory named like a -source_path directory ("static");
//   - anything else (node:internal/…, a plain path, "") is kept as it is.
func FileName(url string) string {
	switch {
	case strings.HasPrefix(url, "file://"):
		u, err := neturl.Parse(url)
		if err != nil || u.Path == "" {
			return url
		}
		p := u.Path
		if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isLetter(p[1]) {
			p = p[1:] // file:///C:/x: a Windows drive
		} else if u.Host != "" && u.Host != "localhost" {
			p = "//" + u.Host + p // file://server/share/x: a UNC path
		}
		return p
	case strings.HasPrefix(url, "http://"), strings.HasPrefix(url, "https://"):
		u, err := neturl.Parse(url)
		if err != nil || u.Host == "" {
			return url
		}
		return u.Host + u.EscapedPath()
	}
	return url
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// FuncName returns the function name Write gives pprof for frame fr of p:
// its name, or for an anonymous function "(anonymous)" and where it
// starts, as a file's base name and 1-based line ("(anonymous)
// server.js:16"); a script without a URL is named "VM<script id>", as
// DevTools names it. pprof keys functions by name (-top, -peek, -list), so
// anonymous functions must have names of their own.
func FuncName(p *profile.Profile, fr *profile.Frame) string {
	if name := p.Str(fr.Name); name != "" {
		return name
	}
	where := path.Base(FileName(p.Str(fr.URL)))
	switch {
	case p.Str(fr.URL) != "":
	case p.Str(fr.ScriptID) != "" && p.Str(fr.ScriptID) != "0":
		where = "VM" + p.Str(fr.ScriptID)
	default:
		where = ""
	}
	switch {
	case fr.Line >= 0 && where != "":
		return fmt.Sprintf("(anonymous) %s:%d", where, fr.Line+1)
	case fr.Line >= 0:
		return fmt.Sprintf("(anonymous) line %d", fr.Line+1)
	case where != "":
		return "(anonymous) " + where
	}
	return "(anonymous)"
}

// splitLines splits the samples that end in a frame with a line table
// over its lines (see the package documentation). For each frame (of a
// written thread) with lines, Self_i each, and flat time F, let den =
// max(F, ΣSelf): line i gets ⌊F·Self_i/den⌋ ns in all (Self_i when the
// lines add up to at most F, as `top --lines` gives them), shared among
// the frame's samples in proportion to their ns (see apportion); what is
// left of each sample stays at the frame's own Location. Counts are split
// alike, in proportion to the same figures.
func (wr *writer) splitLines(stacks []profile.ThreadStacks, tables map[profile.ThreadID][]LineSelf) {
	// 1. Each frame's lines, merged by line, sorted.
	type split struct {
		lines   []LineSelf
		den     int64
		samples []int // indices into wr.out.Sample
	}
	splits := map[leafOf]*split{}
	flat := map[leafOf][2]int64{} // each frame's flat count and time by written thread
	for j := range wr.samples.Len() {
		leaf, v := wr.leaf.At(j), wr.samples.At(j).value
		fl := flat[leaf]
		flat[leaf] = [2]int64{fl[0] + v[0], fl[1] + v[1]}
	}
	for ti, ts := range stacks {
		byFrame := map[profile.FrameID][]LineSelf{}
		for _, ls := range tables[ts.Thread] {
			if ls.Self > 0 && ls.Line > 0 && ls.Frame >= 0 && int(ls.Frame) < len(wr.p.Frames) {
				byFrame[ls.Frame] = append(byFrame[ls.Frame], ls)
			}
		}
		for f, lines := range byFrame {
			fl := flat[leafOf{ti, f}]
			if fl[1] <= 0 {
				continue
			}
			slices.SortFunc(lines, func(a, b LineSelf) int { return cmp.Compare(a.Line, b.Line) })
			merged := lines[:0]
			var sum int64
			for _, ls := range lines {
				sum += int64(ls.Self)
				if n := len(merged); n > 0 && merged[n-1].Line == ls.Line {
					merged[n-1].Self += ls.Self
					continue
				}
				merged = append(merged, ls)
			}
			splits[leafOf{ti, f}] = &split{lines: merged, den: max(fl[1], sum)}
		}
	}
	if len(splits) == 0 {
		return
	}
	// 2. Each frame's samples, split.
	for j := range wr.samples.Len() {
		if sp := splits[wr.leaf.At(j)]; sp != nil {
			sp.samples = append(sp.samples, j)
		}
	}
	parts := make([][2][]int64, wr.samples.Len()) // by sample: [count, ns] by line
	self := []int64{}
	w := []int64{}
	for _, sp := range splits {
		self = self[:0]
		for _, ls := range sp.lines {
			self = append(self, int64(ls.Self))
		}
		for v := range 2 {
			w = w[:0]
			for _, j := range sp.samples {
				w = append(w, wr.samples.At(j).value[v])
			}
			for k, sh := range apportion(w, self, sp.den) {
				parts[sp.samples[k]][v] = sh
			}
		}
	}
	// 3. The samples again, in their order, each followed by its lines.
	in := wr.samples
	wr.samples = chunked.Slice[sampleRec]{}
	for j := range in.Len() {
		smp := in.At(j)
		sp := splits[wr.leaf.At(j)]
		if sp == nil {
			wr.samples.Append(smp)
			continue
		}
		rest := smp.value
		for v := range 2 {
			for _, x := range parts[j][v] {
				rest[v] -= x
			}
		}
		if rest != [2]int64{} {
			smp.value = rest
			wr.samples.Append(smp)
		}
		for i, ls := range sp.lines {
			c, ns := parts[j][0][i], parts[j][1][i]
			if c == 0 && ns == 0 {
				continue
			}
			line := smp
			line.line = wr.lineLocation(wr.leaf.At(j).frame, ls.Line).ID
			line.value = [2]int64{c, ns}
			wr.samples.Append(line)
		}
	}
}

// apportion shares line i's part of the values w (one per sample, ≥ 0,
// Σw = W) among the samples: W·self_i/den in all, rounded down
// (self_i ≤ den, Σself ≤ den; W ≤ den when W is in ns). It returns
// shares[k][i] ≥ 0 with Σ_i shares[k][i] ≤ w[k] and Σ_k shares[k][i] =
// ⌊W·self_i/den⌋:
//
//  1. each sample first gets ⌊w_k·self_i/den⌋ of line i, which leaves it
//     some room (w_k less its shares) and line i a few units short;
//  2. the units lines are short (fewer than the samples for each line)
//     fill the samples' room in order, as two cursors walk the lines and
//     the samples. The room suffices: in all it is W less the shares of
//     step 1, at least ⌊W·Σself/den⌋ less them.
func apportion(w, self []int64, den int64) [][]int64 {
	shares := make([][]int64, len(w))
	short := make([]int64, len(self))
	room := make([]int64, len(w))
	var total int64
	for _, x := range w {
		total += x
	}
	for i, s := range self {
		short[i] = scale(total, s, den)
	}
	for k, x := range w {
		shares[k] = make([]int64, len(self))
		room[k] = x
		for i, s := range self {
			sh := scale(x, s, den)
			shares[k][i] = sh
			short[i] -= sh
			room[k] -= sh
		}
	}
	k := 0
	for i := range self {
		for short[i] > 0 && k < len(w) {
			d := min(short[i], room[k])
			shares[k][i] += d
			short[i] -= d
			room[k] -= d
			if room[k] == 0 {
				k++
			}
		}
	}
	return shares
}

// scale returns ⌊x·self/den⌋ (0 unless all three are positive), the
// product taken in 128 bits; x·self/den must fit in an int64.
func scale(x, self, den int64) int64 {
	if x <= 0 || self <= 0 || den <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(x), uint64(self))
	if hi >= uint64(den) {
		return math.MaxInt64 // the quotient overflows: not for the callers' arguments
	}
	q, _ := bits.Div64(hi, lo, uint64(den))
	return int64(q)
}

// lineLocation returns the Location of frame f at 1-based line line,
// adding it if needed.
func (wr *writer) lineLocation(f profile.FrameID, line int32) *pprofile.Location {
	k := lineLoc{f, line}
	if loc := wr.lineLocs[k]; loc != nil {
		return loc
	}
	fn := wr.location(f).Line[0].Function
	loc := &pprofile.Location{
		ID:   uint64(len(wr.out.Location) + 1),
		Line: []pprofile.Line{{Function: fn, Line: int64(line)}},
	}
	wr.lineLocs[k] = loc
	wr.out.Location = append(wr.out.Location, loc)
	return loc
}

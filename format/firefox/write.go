// Package firefox writes the Firefox Profiler's processed profile format, the
// JSON that profiler.firefox.com opens and its profiler-cli loads
// (https://github.com/firefox-devtools/profiler, src/types/profile.ts;
// the format's history is in its processed-profile-versioning upgraders).
//
// The version written is ProcessedVersion, the PROCESSED_PROFILE_VERSION of
// npm @firefox-devtools/profiler-cli 0.10.0 (tools/firefox pins it, and the
// tests load every output with it). In that version:
//
//   - The tables are shared by all threads under "shared": stringArray,
//     funcTable, frameTable, stackTable, resourceTable, sources,
//     nativeSymbols and sourceLocationTable, each a struct of arrays with a
//     length. Optional columns are not nullable: a "flags" bit says whether
//     a row has a value (frameTable: 4 category, 16 line, 32 column;
//     funcTable: 1 isJS, 2 relevantForJS, 4 resource, 8 source, 16 line,
//     32 column), and absent values are written as 0.
//   - stackTable has frame and prefixOffset: 0 for a root, otherwise the
//     stack's index minus its prefix's index (prefixes come first).
//   - Each thread has its samples (stack, time, weight, weightType) and an
//     empty marker table.
//
// What jsprof puts in it:
//
//   - One thread per profile.ThreadStacks given to Write (pid and tid as
//     strings; one main thread per process), and one sample per stack, at
//     the stack's time (no re-sampling), with its frames (root first) and
//     weightType "tracing-ms": the weight is the stack's duration in ms, so
//     that per-function self and total time in the Firefox Profiler, which
//     sums the weights, equal those of the tree the stacks were computed
//     with (jsprof top and tree), to the ns. A stack with no frames (idle,
//     or time the view does not show) is a sample with a null stack, which
//     ends the sample before it. Where a stack does not start at the end of
//     the one before (time a transform removed) and after the last stack
//     with frames, a null sample of weight 0 ends the previous one, so that
//     the Profiler's timeline, which draws a sample until the next one,
//     shows no time that the stacks do not have.
//   - Times are ms from the earliest stack written (meta.startTime is 0), as
//     exact decimals of jsprof's integer nanoseconds.
//   - meta.interval is the median interval of the written threads' samples
//     in the input, in ms; meta.categories are the profile's categories
//     (profile.Category), colours and subcategories included.
//   - A function (funcTable row) is a profile.FunctionKey: name, URL (of the
//     first frame of the function written), line and column, 1-based in the
//     output. isJS is set for JS frames, relevantForJS where
//     Options.RelevantForJS says so. URLs become resources the way the
//     Profiler's own Chrome importer makes them (an http(s) origin is a
//     "webhost" resource, any other URL a "url" resource) and sources
//     (filename).
//   - A frame has its profile frame's category (profile.Frame.Category, the
//     "Other" subcategory), except a stack's leaf frame, which has the
//     stack's category and subcategory, so that the Profiler's category
//     breakdown is the one the stacks carry.
//
// Like every format package, this one imports no analysis: the caller
// computes the stacks (session.Thread.Stacks) and passes them in.
package firefox

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/internal/chunked"
	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

// ProcessedVersion is the processed-profile format version written
// (meta.preprocessedProfileVersion).
const ProcessedVersion = 75

// GeckoVersion is the Gecko profile format version of the same Profiler
// release (meta.version).
const GeckoVersion = 36

// Options controls Write. The zero value marks no function relevant for JS.
type Options struct {
	// RelevantForJS reports whether a frame's function is relevant for JS
	// (the funcTable's relevantForJS flag, which the Profiler's JS-only
	// call tree keeps beside JS functions); nil marks none. The CLI passes
	// view.RelevantForJS.
	RelevantForJS func(p *profile.Profile, f *profile.Frame) bool
}

// Flags of funcTable rows.
const (
	funcIsJS          = 1
	funcRelevantForJS = 2
	funcHasResource   = 4
	funcHasSource     = 8
	funcHasLine       = 16
	funcHasColumn     = 32
)

// Flags of frameTable rows.
const (
	frameHasCategory = 4
	frameHasLine     = 16
	frameHasColumn   = 32
)

// Resource types (resourceTable.type).
const (
	resourceWebhost = 3
	resourceURL     = 5
)

// Write writes one Firefox thread per element of stacks, in order, as a
// processed profile. The stacks' frames are frames of p (for a session,
// its Profile, which has the frames of trace events). p is not modified.
//
//  1. Walk each thread's stacks, interning functions, frames and stacks
//     into the shared tables and keeping the samples' stack, time and
//     weight.
//  2. Write meta, the threads and the shared tables, streaming.
func Write(w io.Writer, p *profile.Profile, stacks []profile.ThreadStacks, opts Options) error {
	ids := make([]profile.ThreadID, len(stacks))
	seen := make(map[profile.ThreadID]bool, len(stacks))
	for i, ts := range stacks {
		id := ts.Thread
		if int(id) < 0 || int(id) >= len(p.Threads) {
			return fmt.Errorf("no thread %d; the profile has %d", id, len(p.Threads))
		}
		if seen[id] {
			return fmt.Errorf("thread %d given twice", id)
		}
		seen[id] = true
		ids[i] = id
	}
	categories := p.Categories
	if len(categories) == 0 {
		categories = profile.DefaultCategories()
	}

	b := newBuilder(p, categories, opts.RelevantForJS)
	threads := make([]threadOut, len(stacks))
	origin, end, have := profile.Time(0), profile.Time(0), false
	series := make([]profile.Times, 0, len(stacks))
	for i, ts := range stacks {
		to := &threads[i]
		if err := b.samples(ts, to); err != nil {
			return fmt.Errorf("thread %d: %w", ts.Thread, err)
		}
		series = append(series, p.ThreadSamples(ts.Thread).Time)
		if to.time.Len() == 0 {
			continue
		}
		if first := to.time.At(0); !have || first < origin {
			origin = first
		}
		if !have || to.end > end {
			end = to.end
		}
		have = true
	}
	// The sampling interval as summary and the pprof writer give it: the
	// median of the threads' intervals, selected without copying them. A
	// sorted copy of them took 8 bytes a sample and most of the writer's
	// time: the 246 MB recording (27 M samples) converted in 3.5 s at a
	// 912 MB peak, 1.1 s and 367 MB since.
	interval := profile.MedianInterval(series...)
	if interval <= 0 {
		interval = profile.Time(1e6) // 1 ms when there is nothing to measure
	}

	bw := bufio.NewWriterSize(w, 256<<10)
	ww := &writer{bw: bw}
	ww.meta(p, categories, interval, end-origin)
	ww.b = append(ww.b, `,"libs":[],"pages":[],"threads":[`...)
	mains := mainThreads(p, ids)
	for i, id := range ids {
		if i > 0 {
			ww.b = append(ww.b, ',')
		}
		ww.thread(&p.Threads[id], mains[i], &threads[i], origin)
	}
	ww.b = append(ww.b, `],"shared":`...)
	ww.shared(b)
	ww.b = append(ww.b, "}\n"...)
	ww.flush()
	if ww.err != nil {
		return ww.err
	}
	return bw.Flush()
}

// samples fills the samples table of one thread from its stacks: one
// sample per stack, and a null sample of weight 0 where the time the
// stacks cover is interrupted and after the last stack with frames.
func (b *builder) samples(ts profile.ThreadStacks, to *threadOut) error {
	if ts.Stacks == nil {
		return nil
	}
	var err error
	ps := newPathStacks(b.p, ts.Paths) // nil: each stack's frames are walked
	last := int32(-1)                  // the stack of the last sample
	for s := range ts.Stacks {
		if s.Weight < 0 {
			err = fmt.Errorf("stack at %d ns has a negative weight (%d ns)", s.Time, s.Weight)
			break
		}
		if n := to.time.Len(); n > 0 {
			if prev := to.time.At(n - 1); s.Time < prev {
				err = fmt.Errorf("stack at %d ns after one at %d ns: stacks must come in time order", s.Time, prev)
				break
			}
			if s.Time > to.end && last >= 0 {
				to.add(-1, to.end, 0)
			}
		}
		var st int32
		if ps != nil && s.Path > 0 && int(s.Path) < ps.paths.Len() {
			st = b.pathStack(ps, s.Path, s.Category, s.Subcategory)
		} else if st, err = b.stack(s.Frames, s.Category, s.Subcategory); err != nil {
			break
		}
		to.add(st, s.Time, s.Weight)
		to.end = max(to.end, s.Time+s.Weight)
		last = st
	}
	if err != nil {
		return err
	}
	if last >= 0 {
		to.add(-1, to.end, 0)
	}
	return nil
}

// threadOut is the samples table of one thread, before writing.
type threadOut struct {
	stack  chunked.Slice[int32] // −1 for a null stack
	time   chunked.Slice[profile.Time]
	weight chunked.Slice[profile.Time]
	end    profile.Time // the end of the latest stack
}

func (t *threadOut) add(stack int32, time, weight profile.Time) {
	t.stack.Append(stack)
	t.time.Append(time)
	t.weight.Append(weight)
}

// mainThreads marks one main thread per process among the selected ones: a
// Chrome main thread (CrRendererMain, CrBrowserMain, CrGpuMain), else the
// thread whose tid is the pid, else the first one.
func mainThreads(p *profile.Profile, ids []profile.ThreadID) []bool {
	rank := func(th *profile.Thread) int {
		switch {
		case th.Name == "CrRendererMain" || th.Name == "CrBrowserMain" || th.Name == "CrGpuMain":
			return 2
		case th.TID == th.PID:
			return 1
		}
		return 0
	}
	best := map[int64]int{} // pid → index into ids
	for i, id := range ids {
		th := &p.Threads[id]
		j, ok := best[th.PID]
		if !ok || rank(th) > rank(&p.Threads[ids[j]]) {
			best[th.PID] = i
		}
	}
	out := make([]bool, len(ids))
	for _, i := range best {
		out[i] = true
	}
	return out
}

// builder interns strings and builds the shared tables, column by column.
type builder struct {
	p          *profile.Profile
	categories []profile.Category
	relevant   func(*profile.Profile, *profile.Frame) bool // nil: none

	// stringArray
	strs  []string
	strID map[string]int32

	// funcTable, one row per profile.FunctionKey
	funcFlags                     []uint8
	funcName, funcResource        []int32
	funcSource, funcLine, funcCol []int32
	funcOf                        map[profile.FunctionKey]int32

	// resourceTable (host −1 = null) and sources
	resourceName, resourceHost []int32
	resourceType               []uint8
	resourceOf                 map[string]int32
	sourceFile                 []int32
	sourceOf                   map[profile.StringID]int32

	// frameTable: one row per jsprof frame and category
	frameFlags                    []uint8
	frameCategoryCol, frameSubCol []uint8
	frameFuncCol                  []int32
	frameLine, frameColumn        []int32
	frameVariant                  map[frameKey]int32 // rows not in the frame's own category
	// Per FrameID caches: func+1, own category, row+1 in the own category.
	frameFunc    []int32
	frameCat     []frameCategory
	frameDefault []int32

	// stackTable (prefix −1 = root)
	stackFrame, stackPrefix []int32
	stackHash               []uint64         // per stack: the hash of its frames
	stackByHash             map[uint64]int32 // hash of a stack's frames → the stack
	frames                  []int32          // scratch: the current sample's frame rows
	hashes                  []uint64         // scratch: the hashes of its prefixes
	tmp                     []int32          // scratch: paths met for the first time
}

type frameCategory struct {
	ok  bool
	cat profile.CategoryID
	sub uint8
}

type frameKey struct {
	frame profile.FrameID
	cat   profile.CategoryID
	sub   uint8
}

func newBuilder(p *profile.Profile, categories []profile.Category, relevant func(*profile.Profile, *profile.Frame) bool) *builder {
	n := len(p.Frames)
	return &builder{
		p:            p,
		categories:   categories,
		relevant:     relevant,
		frameFunc:    make([]int32, n),
		frameCat:     make([]frameCategory, n),
		frameDefault: make([]int32, n),
		strID:        map[string]int32{},
		funcOf:       map[profile.FunctionKey]int32{},
		frameVariant: map[frameKey]int32{},
		resourceOf:   map[string]int32{},
		sourceOf:     map[profile.StringID]int32{},
		stackByHash:  map[uint64]int32{},
	}
}

func (b *builder) str(s string) int32 {
	id, ok := b.strID[s]
	if !ok {
		id = int32(len(b.strs))
		b.strs = append(b.strs, s)
		b.strID[s] = id
	}
	return id
}

// category returns frame f's own category: the profile frame's, in its
// "Other" subcategory (the category of a non-leaf frame only colours the
// Profiler's call tree; a leaf takes its stack's).
func (b *builder) category(f profile.FrameID) (profile.CategoryID, uint8) {
	fc := &b.frameCat[f]
	if !fc.ok {
		fc.cat, fc.sub = b.p.Frames[f].Category, 0
		if int(fc.cat) >= len(b.categories) {
			fc.cat, fc.sub = b.fallbackCategory(), 0
		}
		fc.ok = true
	}
	return fc.cat, fc.sub
}

// fallbackCategory is the category of frames whose category is not in the
// list: the first grey one (the Profiler's default category), else 0.
func (b *builder) fallbackCategory() profile.CategoryID {
	for i, c := range b.categories {
		if c.Color == "grey" {
			return profile.CategoryID(i)
		}
	}
	return 0
}

// function returns the funcTable row of frame f.
func (b *builder) function(f profile.FrameID) int32 {
	if id := b.frameFunc[f]; id > 0 {
		return id - 1
	}
	p := b.p
	key := p.FunctionKey(f)
	id, ok := b.funcOf[key]
	if !ok {
		fr := &p.Frames[f]
		id = int32(len(b.funcName))
		name := p.Str(fr.Name)
		if name == "" {
			name = "(anonymous)"
		}
		var flags uint8
		if fr.Kind == profile.KindJS {
			flags |= funcIsJS
		}
		if b.relevant != nil && b.relevant(p, fr) {
			flags |= funcRelevantForJS
		}
		res, src := int32(0), int32(0)
		if fr.URL != 0 {
			flags |= funcHasResource | funcHasSource
			res, src = b.resource(p.Str(fr.URL)), b.source(fr.URL)
		}
		line, col := int32(0), int32(0)
		if fr.Line >= 0 {
			flags |= funcHasLine
			line = fr.Line + 1
			if fr.Column >= 0 {
				flags |= funcHasColumn
				col = fr.Column + 1
			}
		}
		b.funcFlags = append(b.funcFlags, flags)
		b.funcName = append(b.funcName, b.str(name))
		b.funcResource = append(b.funcResource, res)
		b.funcSource = append(b.funcSource, src)
		b.funcLine = append(b.funcLine, line)
		b.funcCol = append(b.funcCol, col)
		b.funcOf[key] = id
	}
	b.frameFunc[f] = id + 1
	return id
}

// resource returns the resource of a URL, as the Profiler's Chrome importer
// makes them: one "webhost" resource per http(s) origin, one "url" resource
// per other URL.
func (b *builder) resource(u string) int32 {
	key, host := u, ""
	if pu, err := url.Parse(u); err == nil && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != "" {
		host = strings.ToLower(pu.Host)
		if (pu.Scheme == "http" && strings.HasSuffix(host, ":80")) || (pu.Scheme == "https" && strings.HasSuffix(host, ":443")) {
			host = host[:strings.LastIndexByte(host, ':')]
		}
		key = pu.Scheme + "://" + host
	}
	id, ok := b.resourceOf[key]
	if !ok {
		id = int32(len(b.resourceName))
		b.resourceName = append(b.resourceName, b.str(key))
		if host != "" {
			b.resourceHost = append(b.resourceHost, b.str(host))
			b.resourceType = append(b.resourceType, resourceWebhost)
		} else {
			b.resourceHost = append(b.resourceHost, -1)
			b.resourceType = append(b.resourceType, resourceURL)
		}
		b.resourceOf[key] = id
	}
	return id
}

// source returns the sources row of a URL.
func (b *builder) source(u profile.StringID) int32 {
	id, ok := b.sourceOf[u]
	if !ok {
		id = int32(len(b.sourceFile))
		b.sourceFile = append(b.sourceFile, b.str(b.p.Str(u)))
		b.sourceOf[u] = id
	}
	return id
}

// frame returns the frameTable row of frame f with category c/sub.
func (b *builder) frame(f profile.FrameID, c profile.CategoryID, sub uint8) int32 {
	dc, dsub := b.category(f)
	own := c == dc && sub == dsub
	if own {
		if id := b.frameDefault[f]; id > 0 {
			return id - 1
		}
	} else if id, ok := b.frameVariant[frameKey{f, c, sub}]; ok {
		return id
	}
	fn := b.function(f)
	fr := &b.p.Frames[f]
	id := int32(len(b.frameFuncCol))
	flags := uint8(frameHasCategory)
	line, col := int32(0), int32(0)
	if fr.Line >= 0 {
		flags |= frameHasLine
		line = fr.Line + 1
		if fr.Column >= 0 {
			flags |= frameHasColumn
			col = fr.Column + 1
		}
	}
	b.frameFlags = append(b.frameFlags, flags)
	b.frameCategoryCol = append(b.frameCategoryCol, uint8(c))
	b.frameSubCol = append(b.frameSubCol, sub)
	b.frameFuncCol = append(b.frameFuncCol, fn)
	b.frameLine = append(b.frameLine, line)
	b.frameColumn = append(b.frameColumn, col)
	if own {
		b.frameDefault[f] = id + 1
	} else {
		b.frameVariant[frameKey{f, c, sub}] = id
	}
	return id
}

// stack returns the stackTable row of a stack (root first) whose leaf has
// the stack's category c/sub, or −1 for an empty stack.
//
// Every stack row is indexed by a hash of its frames from the root (FNV-1a
// over frame rows; a hit is checked against the table), so a sample costs
// one pass over its frames and, usually, one lookup: the longest known
// prefix is searched from the leaf back, and only the rows after it are
// added. (With the stacks' paths, pathStack does without the pass.)
func (b *builder) stack(frames []profile.FrameID, c profile.CategoryID, sub uint8) (int32, error) {
	if len(frames) == 0 {
		return -1, nil
	}
	c, sub = b.leafCategory(c, sub)
	b.frames, b.hashes = b.frames[:0], b.hashes[:0]
	h := uint64(fnvOffset)
	for j, f := range frames {
		if int(f) < 0 || int(f) >= len(b.p.Frames) {
			return 0, fmt.Errorf("frame %d of a stack is not in the profile (%d frames)", f, len(b.p.Frames))
		}
		var fr int32
		if j == len(frames)-1 {
			fr = b.frame(f, c, sub)
		} else {
			fr = b.ownFrame(f)
		}
		b.frames = append(b.frames, fr)
		h = stackHash(h, fr)
		b.hashes = append(b.hashes, h)
	}
	k, st := len(b.frames), int32(-1)
	for ; k > 0; k-- {
		if id, ok := b.stackByHash[b.hashes[k-1]]; ok && b.sameStack(id, b.frames[:k]) {
			st = id
			break
		}
	}
	for j := k; j < len(b.frames); j++ {
		st = b.addStack(st, b.frames[j], b.hashes[j])
	}
	return st, nil
}

// FNV-1a's parameters, for the hashes of stacks.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// stackHash returns the hash of a stack whose prefix's hash is h
// (fnvOffset for a root) and whose frame row is fr.
func stackHash(h uint64, fr int32) uint64 { return (h ^ uint64(uint32(fr))) * fnvPrime }

// addStack adds the stackTable row of frame row fr under stack prefix
// (−1 for a root), whose hash is h, and returns it.
func (b *builder) addStack(prefix, fr int32, h uint64) int32 {
	id := int32(len(b.stackFrame))
	b.stackFrame = append(b.stackFrame, fr)
	b.stackPrefix = append(b.stackPrefix, prefix)
	b.stackHash = append(b.stackHash, h)
	b.stackByHash[h] = id
	return id
}

// sameStack reports whether stack id has exactly the frames, root first.
func (b *builder) sameStack(id int32, frames []int32) bool {
	for j := len(frames) - 1; j >= 0; j-- {
		if id < 0 || b.stackFrame[id] != frames[j] {
			return false
		}
		id = b.stackPrefix[id]
	}
	return id < 0
}

// pathStacks finds the stack rows of one thread's stacks from their call
// paths (profile.ThreadStacks.Paths): a stack's prefix is the stack of its
// path's parent with every frame in its own category (as builder.stack
// makes it), which is kept per path and made from its own parent's, so a
// path costs one step once instead of one per frame each time a stack is
// on it (quadratic on deep stacks: 0.75 s for a chain 20 k frames deep,
// each stack a frame deeper than the last).
type pathStacks struct {
	paths *profile.PathTree
	own   []int32 // per path: its stack in own categories, +1; 0 not made yet
}

// newPathStacks returns the pathStacks of a thread's stacks, nil when
// paths is nil or fails its check.
func newPathStacks(p *profile.Profile, paths *profile.PathTree) *pathStacks {
	if paths == nil || paths.Check(p) != nil {
		return nil
	}
	return &pathStacks{paths: paths, own: make([]int32, paths.Len())}
}

// pathStack is stack for a stack whose frames are those of path path of
// ps, not the empty path: the same row, from the path's parent's stack.
func (b *builder) pathStack(ps *pathStacks, path int32, c profile.CategoryID, sub uint8) int32 {
	c, sub = b.leafCategory(c, sub)
	parent := ps.paths.Parent[path]
	// The parent and its ancestors without their stack yet, deepest
	// first, then their stacks from the nearest ancestor's (−1 for the
	// empty path): the rows builder.stack makes, in the same order.
	b.tmp = b.tmp[:0]
	q := parent
	for ; q > 0 && ps.own[q] == 0; q = ps.paths.Parent[q] {
		b.tmp = append(b.tmp, q)
	}
	st := int32(-1)
	if q > 0 {
		st = ps.own[q] - 1
	}
	for k := len(b.tmp) - 1; k >= 0; k-- {
		x := b.tmp[k]
		st = b.stackOf(st, b.ownFrame(ps.paths.Frame[x]))
		ps.own[x] = st + 1
	}
	return b.stackOf(st, b.frame(ps.paths.Frame[path], c, sub))
}

// leafCategory returns the category a stack's leaf frame has for a stack
// of category c/sub: c/sub, or the fallback category when c is not in
// the list, and subcategory 0 when sub is not in c.
func (b *builder) leafCategory(c profile.CategoryID, sub uint8) (profile.CategoryID, uint8) {
	if int(c) >= len(b.categories) {
		return b.fallbackCategory(), 0
	}
	if int(sub) >= len(b.categories[c].Subcategories) {
		return c, 0
	}
	return c, sub
}

// ownFrame returns the frameTable row of frame f in its own category, as
// a frame that is not a stack's leaf has.
func (b *builder) ownFrame(f profile.FrameID) int32 {
	if id := b.frameDefault[f]; id > 0 {
		return id - 1
	}
	fc, fsub := b.category(f)
	return b.frame(f, fc, fsub)
}

// stackOf returns the stackTable row of frame row fr under stack prefix
// (−1 for a root), adding it when new: the row stack finds or adds for the
// same frames, found by the same hash, in one step.
func (b *builder) stackOf(prefix, fr int32) int32 {
	h := uint64(fnvOffset)
	if prefix >= 0 {
		h = b.stackHash[prefix]
	}
	h = stackHash(h, fr)
	if id, ok := b.stackByHash[h]; ok && b.stackFrame[id] == fr && b.stackPrefix[id] == prefix {
		return id
	}
	return b.addStack(prefix, fr, h)
}

// writer appends JSON to a buffer that it flushes to bw now and then.
type writer struct {
	bw  *bufio.Writer
	b   []byte
	err error
}

func (w *writer) flush() {
	if w.err == nil {
		_, w.err = w.bw.Write(w.b)
	}
	w.b = w.b[:0]
}

func (w *writer) maybeFlush() {
	if len(w.b) > 128<<10 {
		w.flush()
	}
}

func (w *writer) key(k string) {
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

// ints writes "key":[…] from n values.
func ints[T ~int32 | ~uint8 | int64](w *writer, key string, vs []T) {
	w.key(key)
	w.b = append(w.b, '[')
	for i, v := range vs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = strconv.AppendInt(w.b, int64(v), 10)
		w.maybeFlush()
	}
	w.b = append(w.b, ']', ',')
}

// nullableInts writes "key":[…], the values of blocks in order, a
// negative one as null.
func (w *writer) nullableInts(key string, blocks ...[]int32) {
	writeArray(w, key, blocks, func(b []byte, v int32) []byte {
		if v < 0 {
			return append(b, "null"...)
		}
		return strconv.AppendInt(b, int64(v), 10)
	})
}

// millis writes "key":[…], the times of blocks in order less origin, in
// ms.
func (w *writer) millis(key string, origin profile.Time, blocks ...[]profile.Time) {
	writeArray(w, key, blocks, func(b []byte, t profile.Time) []byte { return jsonw.Millis(b, int64(t-origin)) })
}

// writeArray writes "key":[…], the values of blocks in order, each as put
// appends it.
func writeArray[T any](w *writer, key string, blocks [][]T, put func([]byte, T) []byte) {
	w.key(key)
	w.b = append(w.b, '[')
	sep := false
	for _, vs := range blocks {
		for _, v := range vs {
			if sep {
				w.b = append(w.b, ',')
			}
			sep = true
			w.b = put(w.b, v)
			w.maybeFlush()
		}
	}
	w.b = append(w.b, ']', ',')
}

// repeat writes "key":[v,v,…] n times.
func (w *writer) repeat(key, v string, n int) {
	w.key(key)
	w.b = append(w.b, '[')
	for i := range n {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, v...)
		w.maybeFlush()
	}
	w.b = append(w.b, ']', ',')
}

func (w *writer) length(n int) {
	w.b = append(w.b, `"length":`...)
	w.b = strconv.AppendInt(w.b, int64(n), 10)
	w.b = append(w.b, '}')
}

func (w *writer) meta(p *profile.Profile, categories []profile.Category, interval, end profile.Time) {
	w.b = append(w.b, `{"meta":{"version":`...)
	w.b = strconv.AppendInt(w.b, GeckoVersion, 10)
	w.b = append(w.b, `,"preprocessedProfileVersion":`...)
	w.b = strconv.AppendInt(w.b, ProcessedVersion, 10)
	w.b = append(w.b, `,"interval":`...)
	w.b = jsonw.Millis(w.b, int64(interval))
	w.b = append(w.b, `,"startTime":0,"profilingStartTime":0,"profilingEndTime":`...)
	w.b = jsonw.Millis(w.b, int64(end))
	w.b = append(w.b, `,"processType":0,"product":"jsprof","importedFrom":`...)
	w.b = jsonw.String(w.b, "jsprof ("+cmp.Or(p.Format, "profile")+")")
	w.b = append(w.b, `,"stackwalk":0,"symbolicated":true,"sourceCodeIsNotOnSearchfox":true,`...)
	w.b = append(w.b, `"extensions":{"id":[],"name":[],"baseURL":[],"length":0},"categories":[`...)
	for i, c := range categories {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = append(w.b, `{"name":`...)
		w.b = jsonw.String(w.b, c.Name)
		w.b = append(w.b, `,"color":`...)
		w.b = jsonw.String(w.b, c.Color)
		w.b = append(w.b, `,"subcategories":[`...)
		subs := c.Subcategories
		if len(subs) == 0 {
			subs = []string{"Other"}
		}
		for j, s := range subs {
			if j > 0 {
				w.b = append(w.b, ',')
			}
			w.b = jsonw.String(w.b, s)
		}
		w.b = append(w.b, "]}"...)
	}
	w.b = append(w.b, `],"markerSchema":[]}`...)
}

func (w *writer) thread(th *profile.Thread, main bool, t *threadOut, origin profile.Time) {
	name := th.Name
	if name == "" {
		name = "Thread " + strconv.FormatInt(th.TID, 10)
	}
	w.b = append(w.b, `{"name":`...)
	w.b = jsonw.String(w.b, name)
	if th.ProcessName != "" {
		w.b = append(w.b, `,"processName":`...)
		w.b = jsonw.String(w.b, th.ProcessName)
	}
	w.b = append(w.b, `,"pid":"`...)
	w.b = strconv.AppendInt(w.b, th.PID, 10)
	w.b = append(w.b, `","tid":"`...)
	w.b = strconv.AppendInt(w.b, th.TID, 10)
	w.b = append(w.b, `","processType":"default","isMainThread":`...)
	w.b = strconv.AppendBool(w.b, main)
	w.b = append(w.b, `,"processStartupTime":0,"processShutdownTime":null,"registerTime":0,"unregisterTime":null,"pausedRanges":[],`...)
	w.b = append(w.b, `"samples":{"weightType":"tracing-ms",`...)
	w.nullableInts("stack", t.stack.Blocks()...)
	w.millis("time", origin, t.time.Blocks()...)
	w.millis("weight", 0, t.weight.Blocks()...)
	w.length(t.stack.Len())
	w.b = append(w.b, `,"markers":{"data":[],"name":[],"startTime":[],"endTime":[],"phase":[],"category":[],"length":0}}`...)
	w.maybeFlush()
}

func (w *writer) shared(b *builder) {
	w.b = append(w.b, `{"stringArray":[`...)
	for i, s := range b.strs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsonw.String(w.b, s)
		w.maybeFlush()
	}
	w.b = append(w.b, "],"...)

	nf := len(b.funcName)
	w.b = append(w.b, `"funcTable":{`...)
	ints(w, "flags", b.funcFlags)
	ints(w, "name", b.funcName)
	ints(w, "resource", b.funcResource)
	ints(w, "source", b.funcSource)
	ints(w, "lineNumber", b.funcLine)
	ints(w, "columnNumber", b.funcCol)
	w.repeat("originalLocation", "0", nf)
	w.length(nf)

	nr := len(b.frameFuncCol)
	w.b = append(w.b, `,"frameTable":{`...)
	ints(w, "flags", b.frameFlags)
	w.repeat("address", "0", nr)
	ints(w, "category", b.frameCategoryCol)
	ints(w, "subcategory", b.frameSubCol)
	ints(w, "func", b.frameFuncCol)
	w.repeat("lib", "0", nr)
	w.repeat("nativeSymbol", "0", nr)
	w.repeat("innerWindowID", "0", nr)
	ints(w, "line", b.frameLine)
	ints(w, "column", b.frameColumn)
	w.repeat("originalLocation", "0", nr)
	w.length(nr)

	ns := len(b.stackFrame)
	w.b = append(w.b, `,"stackTable":{`...)
	ints(w, "frame", b.stackFrame)
	w.key("prefixOffset")
	w.b = append(w.b, '[')
	for i, pre := range b.stackPrefix {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		off := 0
		if pre >= 0 {
			off = i - int(pre)
		}
		w.b = strconv.AppendInt(w.b, int64(off), 10)
		w.maybeFlush()
	}
	w.b = append(w.b, "],"...)
	w.length(ns)

	w.b = append(w.b, `,"resourceTable":{`...)
	ints(w, "name", b.resourceName)
	w.nullableInts("host", b.resourceHost)
	ints(w, "type", b.resourceType)
	w.length(len(b.resourceName))

	nsrc := len(b.sourceFile)
	w.b = append(w.b, `,"sources":{`...)
	w.repeat("id", "null", nsrc)
	ints(w, "filename", b.sourceFile)
	w.repeat("startLine", "1", nsrc)
	w.repeat("startColumn", "1", nsrc)
	w.repeat("sourceMapURL", "null", nsrc)
	w.repeat("content", "null", nsrc)
	w.length(nsrc)

	w.b = append(w.b, `,"nativeSymbols":{"libIndex":[],"address":[],"name":[],"functionSize":[],"length":0}`...)
	w.b = append(w.b, `,"sourceLocationTable":{"source":[],"line":[],"column":[],"length":0}}`...)
}

package pprof

import (
	"compress/gzip"
	"errors"
	"io"
	"slices"

	"github.com/jsprof/jsprof/internal/pipew"
)

// Encoding the profile ourselves.
//
// pprof's Profile.Write marshals the whole profile into one buffer and then
// gzips it, and wants every Sample to hold its locations as a slice of
// pointers. A profile of many deep paths is mostly those lists: on the
// many-nodes shape (350 k paths, 62 deep on average) the Samples' lists
// were 173 MB of pointers, which the collector scanned again and again,
// then 113 MB of ids copied from them and a buffer grown to 60 MB a quarter
// at a time; the conversion took 3 s at 667 MB. encode writes the same
// bytes, field by field in the order of profile.proto as the library writes
// them, its strings numbered as the library numbers them (in the order it
// meets them: sample types, the samples' labels, functions, period type,
// comments, default sample type), and streams the samples into gzip, on
// the other core, each sample's locations made from its path when it is
// written. The library still builds everything else (locations,
// functions), and the tests (TestEncodeAsLibrary, FuzzParse) compare the
// result byte for byte with its own Write of the same profile.

// encode writes wr's profile, gzipped, to w.
func (wr *writer) encode(w io.Writer) error {
	out := wr.out
	if len(out.Sample) > 0 || len(out.Mapping) > 0 {
		return errors.New("internal error: samples or mappings built as pprof objects")
	}
	var st stringTable
	st.add("")
	var sampleTypes [][2]int64
	for _, x := range out.SampleType {
		sampleTypes = append(sampleTypes, [2]int64{st.add(x.Type), st.add(x.Unit)})
	}
	// Each thread's labels, its strings numbered when its first sample is
	// met (the library numbers each sample's labels, sorted by key; those
	// of later samples of the thread are numbered already).
	labels := make([][]labelX, len(wr.threads))
	for _, b := range wr.samples.Blocks() {
		for _, smp := range b {
			if labels[smp.ti] == nil {
				labels[smp.ti] = wr.threadLabels(&st, int(smp.ti))
			}
		}
	}
	type functionX struct{ name, systemName, filename int64 }
	funcs := make([]functionX, len(out.Function))
	for i, f := range out.Function {
		funcs[i] = functionX{st.add(f.Name), st.add(f.SystemName), st.add(f.Filename)}
	}
	dropFrames, keepFrames := st.add(out.DropFrames), st.add(out.KeepFrames)
	var periodType [2]int64
	if pt := out.PeriodType; pt != nil {
		periodType = [2]int64{st.add(pt.Type), st.add(pt.Unit)}
	}
	var comments []int64
	for _, c := range out.Comments {
		comments = append(comments, st.add(c))
	}
	defaultSampleType, docURL := st.add(out.DefaultSampleType), st.add(out.DocURL)

	// Compressed on the other core while the samples are encoded.
	zw := gzip.NewWriter(w)
	bw := pipew.New(zw)
	defer bw.Close()
	var e, msg protoBuf
	// message writes what msg holds as field tag of the profile.
	message := func(tag int) {
		e.b = e.b[:0]
		e.length(tag, len(msg.b))
		bw.Write(e.b)
		bw.Write(msg.b)
		msg.b = msg.b[:0]
	}
	for _, x := range sampleTypes {
		msg.int64Opt(1, x[0])
		msg.int64Opt(2, x[1])
		message(1)
	}
	var ids []uint64
	var sub protoBuf
	for _, b := range wr.samples.Blocks() {
		for i := range b {
			smp := &b[i]
			ids = wr.sampleIDs(ids[:0], smp)
			msg.uint64s(1, ids)
			msg.int64s(2, smp.value[:])
			for _, l := range labels[smp.ti] {
				sub.b = sub.b[:0]
				sub.int64Opt(1, l.key)
				sub.int64Opt(2, l.str)
				sub.int64Opt(3, l.num)
				msg.length(3, len(sub.b))
				msg.b = append(msg.b, sub.b...)
			}
			message(2)
		}
	}
	for _, loc := range out.Location {
		msg.uint64Opt(1, loc.ID)
		if loc.Mapping != nil {
			msg.uint64Opt(2, loc.Mapping.ID)
		}
		msg.uint64Opt(3, loc.Address)
		for _, ln := range loc.Line {
			sub.b = sub.b[:0]
			if ln.Function != nil {
				sub.uint64Opt(1, ln.Function.ID)
			}
			sub.int64Opt(2, ln.Line)
			sub.int64Opt(3, ln.Column)
			msg.length(4, len(sub.b))
			msg.b = append(msg.b, sub.b...)
		}
		if loc.IsFolded {
			msg.uint64(5, 1)
		}
		message(4)
	}
	for i, f := range out.Function {
		msg.uint64Opt(1, f.ID)
		msg.int64Opt(2, funcs[i].name)
		msg.int64Opt(3, funcs[i].systemName)
		msg.int64Opt(4, funcs[i].filename)
		msg.int64Opt(5, f.StartLine)
		message(5)
	}
	for _, s := range st.list {
		e.b = e.b[:0]
		e.length(6, len(s))
		bw.Write(e.b)
		bw.WriteString(s)
	}
	e.b = e.b[:0]
	e.int64Opt(7, dropFrames)
	e.int64Opt(8, keepFrames)
	e.int64Opt(9, out.TimeNanos)
	e.int64Opt(10, out.DurationNanos)
	bw.Write(e.b)
	if periodType != [2]int64{} {
		msg.int64Opt(1, periodType[0])
		msg.int64Opt(2, periodType[1])
		message(11)
	}
	e.b = e.b[:0]
	e.int64Opt(12, out.Period)
	e.int64s(13, comments)
	e.uint64(14, uint64(defaultSampleType))
	e.int64Opt(15, docURL)
	bw.Write(e.b)
	if err := bw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// labelX is a label with its strings numbered (numeric labels have no
// unit here).
type labelX struct{ key, str, num int64 }

// threadLabels returns the labels of thread ti's samples, numbering their
// strings as the library does: string labels, then numeric labels, each
// sorted by key.
func (wr *writer) threadLabels(st *stringTable, ti int) []labelX {
	th := &wr.threads[ti]
	ls := []labelX{{key: st.add("thread"), str: st.add(th.name)}}
	keys := make([]string, 0, len(th.num))
	for k := range th.num {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		key := st.add(k)
		for _, v := range th.num[k] {
			ls = append(ls, labelX{key: key, num: v})
		}
	}
	return ls
}

// sampleIDs appends the location ids of smp, leaf first, to ids.
func (wr *writer) sampleIDs(ids []uint64, smp *sampleRec) []uint64 {
	if smp.path < 0 {
		ids = append(ids, wr.ids[smp.chunk][smp.at:smp.at+smp.n]...)
	} else {
		wr.frames = wr.threads[smp.ti].paths.AppendFrames(wr.frames[:0], smp.path)
		for i := len(wr.frames) - 1; i >= 0; i-- {
			ids = append(ids, wr.locs[wr.frames[i]].ID)
		}
	}
	if smp.line != 0 && len(ids) > 0 {
		ids[0] = smp.line
	}
	return ids
}

// stringTable numbers strings in the order they are added.
type stringTable struct {
	index map[string]int64
	list  []string
}

func (t *stringTable) add(s string) int64 {
	if t.index == nil {
		t.index = map[string]int64{}
	}
	if i, ok := t.index[s]; ok {
		return i
	}
	i := int64(len(t.list))
	t.index[s] = i
	t.list = append(t.list, s)
	return i
}

// protoBuf appends protobuf fields as pprof's encoder writes them: a
// repeated number field of more than two values packed, of up to two as
// separate fields; an optional field only when not zero.
type protoBuf struct{ b []byte }

func (p *protoBuf) varint(x uint64) {
	for x >= 0x80 {
		p.b = append(p.b, byte(x)|0x80)
		x >>= 7
	}
	p.b = append(p.b, byte(x))
}

func (p *protoBuf) length(tag, n int) {
	p.varint(uint64(tag)<<3 | 2)
	p.varint(uint64(n))
}

func (p *protoBuf) uint64(tag int, x uint64) {
	p.varint(uint64(tag) << 3)
	p.varint(x)
}

func (p *protoBuf) uint64Opt(tag int, x uint64) {
	if x != 0 {
		p.uint64(tag, x)
	}
}

func (p *protoBuf) int64Opt(tag int, x int64) { p.uint64Opt(tag, uint64(x)) }

func (p *protoBuf) uint64s(tag int, xs []uint64) {
	if len(xs) <= 2 {
		for _, x := range xs {
			p.uint64(tag, x)
		}
		return
	}
	n := 0
	for _, x := range xs {
		n += varintLen(x)
	}
	p.length(tag, n)
	for _, x := range xs {
		p.varint(x)
	}
}

func (p *protoBuf) int64s(tag int, xs []int64) {
	if len(xs) <= 2 {
		for _, x := range xs {
			p.uint64(tag, uint64(x))
		}
		return
	}
	n := 0
	for _, x := range xs {
		n += varintLen(uint64(x))
	}
	p.length(tag, n)
	for _, x := range xs {
		p.varint(uint64(x))
	}
}

func varintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

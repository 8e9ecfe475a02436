package chrometrace

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// The Trace Event Format's own CPU samples: an object trace may carry, beside
// traceEvents, a "stackFrames" dictionary (id → {name, category, parent})
// and a "samples" array ({tid, ts, sf, weight, cpu, name}; Hermes adds pid).
// DevTools ignores them; speedscope and the Firefox Profiler read them as
// sampled threads, and so does jsprof (appendTopSamples).

// rawValue is a top-level member captured whole, with its offset in the
// input.
type rawValue struct {
	data []byte
	off  int64
}

// captureValue reads one value of the top-level object, of any size, and
// keeps its bytes.
func (r *reader) captureValue(path string) (rawValue, error) {
	if _, err := r.peek(); err != nil {
		return rawValue{}, err
	}
	v := rawValue{off: r.base + int64(r.pos)}
	r.capturing, r.capStart, r.captured = true, r.pos, nil
	err := r.skipValue(path)
	r.capturing = false
	if err != nil {
		return rawValue{}, err
	}
	v.data = append(r.captured, r.buf[r.capStart:r.pos]...)
	r.captured = nil
	return v, nil
}

// topFrame is a stackFrames entry.
type topFrame struct {
	frame     profile.FrameID
	parent    string
	hasParent bool
}

// topSample is a samples entry.
type topSample struct {
	pid, tid []byte
	hasPid   bool
	ts       float64
	sf       string
}

// hermesName matches a Hermes frame name, "name(url:line:column)".
var hermesName = regexp.MustCompile(`^(.*)\((.+):(\d+):(\d+)\)$`)

// readStackFrames reads the stackFrames dictionary.
func (r *reader) readStackFrames(v rawValue) (map[string]topFrame, error) {
	s := jsonscan.New(v.data)
	fail := func(path string, err error) error {
		pe := jsonscan.Locate(err, s.Offset(), path) // relative to v.data
		pe.Offset += v.off
		return pe
	}
	frames := map[string]topFrame{}
	if err := s.BeginObject(); err != nil {
		return nil, fail("stackFrames", err)
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return nil, fail("stackFrames", err)
		}
		if !ok {
			return frames, nil
		}
		id := string(key)
		path := "stackFrames." + id
		if err := s.BeginObject(); err != nil {
			return nil, fail(path, err)
		}
		var tf topFrame
		var name []byte
		for first := true; ; first = false {
			k, ok, err := s.NextKey(first)
			if err != nil {
				return nil, fail(path, err)
			}
			if !ok {
				break
			}
			switch string(k) {
			case "name":
				if name, err = s.String(); err != nil {
					return nil, fail(path+".name", err)
				}
			case "parent":
				if s.Null() {
					continue
				}
				if tf.parent, err = idToken(s); err != nil {
					return nil, fail(path+".parent", err)
				}
				tf.hasParent = true
			default:
				if err := s.Skip(); err != nil {
					return nil, fail(path+"."+string(k), err)
				}
			}
		}
		f := profile.Frame{Name: r.b.InternBytes(name), Line: -1, Column: -1}
		if m := hermesName.FindSubmatch(name); m != nil {
			line, _ := strconv.ParseInt(string(m[3]), 10, 32)
			col, _ := strconv.ParseInt(string(m[4]), 10, 32)
			f.Name, f.URL = r.b.InternBytes(m[1]), r.b.InternBytes(m[2])
			f.Line, f.Column = int32(max(line, 0)-1), int32(max(col, 0)-1)
		}
		if f.URL == 0 {
			f.Kind = profile.KindNative // a name alone ("[root]", "[GC Young Gen]") is no V8 meta frame
		}
		tf.frame = r.b.Frame(f)
		frames[id] = tf
	}
}

// idToken reads a stack frame id, a number or a string, as the string that
// keys stackFrames.
func idToken(s *jsonscan.Scanner) (string, error) {
	if s.Kind() == '"' {
		b, err := s.String()
		return string(b), err
	}
	f, err := s.Float()
	if err != nil {
		return "", err
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

// readTopSamples reads the samples array.
func (r *reader) readTopSamples(v rawValue) ([]topSample, error) {
	s := jsonscan.New(v.data)
	fail := func(path string, err error) error {
		pe := jsonscan.Locate(err, s.Offset(), path) // relative to v.data
		pe.Offset += v.off
		return pe
	}
	// failAt locates an error of the value at offset at of v.data.
	failAt := func(path string, at int64, err error) error {
		return &profile.ParseError{Offset: v.off + at, Path: path, Err: err}
	}
	var out []topSample
	if err := s.BeginArray(); err != nil {
		return nil, fail("samples", err)
	}
	for i := 0; ; i++ {
		ok, err := s.NextElem(i == 0)
		if err != nil {
			return nil, fail("samples", err)
		}
		if !ok {
			return out, nil
		}
		path := fmt.Sprintf("samples[%d]", i)
		s.Peek()
		objAt := s.Offset()
		if err := s.BeginObject(); err != nil {
			return nil, fail(path, err)
		}
		var ts topSample
		hasSF, hasTS := false, false
		for first := true; ; first = false {
			k, ok, err := s.NextKey(first)
			if err != nil {
				return nil, fail(path, err)
			}
			if !ok {
				break
			}
			switch key := string(k); key {
			case "pid", "tid":
				s.Peek()
				start := s.Offset()
				if err := s.Skip(); err != nil {
					return nil, fail(path+"."+key, err)
				}
				raw := s.Raw(start, s.Offset())
				if key == "pid" {
					ts.pid, ts.hasPid = raw, true
				} else {
					ts.tid = raw
				}
			case "ts":
				s.Peek()
				at := s.Offset()
				if s.Kind() == '"' {
					b, err := s.String()
					if err != nil {
						return nil, fail(path+".ts", err)
					}
					if ts.ts, err = strconv.ParseFloat(string(b), 64); err != nil {
						return nil, failAt(path+".ts", at, fmt.Errorf("ts %q is not a number", b))
					}
				} else if ts.ts, err = s.Float(); err != nil {
					return nil, fail(path+".ts", err)
				}
				if ts.ts != ts.ts || ts.ts > maxMicros || ts.ts < -maxMicros {
					return nil, failAt(path+".ts", at, fmt.Errorf("ts beyond ±%d µs", int64(maxMicros)))
				}
				hasTS = true
			case "sf":
				if ts.sf, err = idToken(s); err != nil {
					return nil, fail(path+".sf", err)
				}
				hasSF = true
			default:
				if err := s.Skip(); err != nil {
					return nil, fail(path+"."+key, err)
				}
			}
		}
		if !hasTS {
			return nil, failAt(path, objAt, errors.New("missing ts"))
		}
		if !hasSF {
			ts.sf = "" // no stack: a sample of the root
		}
		out = append(out, ts)
	}
}

// appendTopSamples appends one thread per (pid, tid) of the top-level
// samples, in order of first appearance, and records it in threadOfKey. A
// thread that already has a CPU profile keeps it: its samples here are
// counted and left out. Each thread's tree is built from the sample stacks
// (stackFrames parent links), under a "(root)" node.
func (r *reader) appendTopSamples(threadOfKey map[threadKey]profile.ThreadID) error {
	if r.topSamples.data == nil {
		return nil
	}
	var frames map[string]topFrame
	if r.stackFrames.data != nil {
		var err error
		if frames, err = r.readStackFrames(r.stackFrames); err != nil {
			return err
		}
	}
	samples, err := r.readTopSamples(r.topSamples)
	if err != nil {
		return err
	}
	b := r.b
	prof := b.P
	rootFrame := b.Frame(profile.Frame{Name: b.Intern("(root)"), ScriptID: b.Intern("0"), Line: -1, Column: -1})
	// Group by thread, in order of first appearance.
	var keys []threadKey
	byKey := map[threadKey][]topSample{}
	var pidOf map[profile.StringID][]byte
	for _, s := range samples {
		pid := s.pid
		if !s.hasPid {
			if pidOf == nil {
				pidOf = r.pidsOfTids()
			}
			pid = []byte("1") // the format's samples may omit it
			if p, ok := pidOf[b.InternBytes(s.tid)]; ok {
				pid = p
			}
		}
		k := threadKey{b.InternBytes(pid), b.InternBytes(s.tid)}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], s)
	}
	var unknownFrame, brokenLink, unsorted, skipped int64
	for _, k := range keys {
		ss := byKey[k]
		if _, ok := threadOfKey[k]; ok {
			skipped += int64(len(ss))
			continue
		}
		for i := 1; i < len(ss); i++ {
			if ss[i-1].ts > ss[i].ts {
				unsorted++
			}
		}
		slices.SortStableFunc(ss, func(a, b topSample) int {
			if a.ts < b.ts {
				return -1
			} else if a.ts > b.ts {
				return 1
			}
			return 0
		})
		base := profile.NodeID(len(prof.Nodes))
		prof.Nodes = append(prof.Nodes, profile.Node{Parent: profile.NoNode, Frame: rootFrame, InputID: -1})
		child := map[[2]int32]profile.NodeID{}
		nodeOf := map[string]profile.NodeID{} // a sample's sf → node, memoised
		// Every frame id placed so far (a sample's or one of its
		// ancestors'): its node, and whether its chain was cut. A new
		// sample's stack is walked up only to a frame already placed:
		// walked up to the root for each new sf, a chain of n frames, a
		// sample at each, took n²/2 steps (20 k frames: 11 s).
		type placed struct {
			node   profile.NodeID
			broken bool
		}
		at := map[string]placed{} // node −1: met on the walk under way, not placed yet
		var ids []string
		first := int32(prof.Samples.Len())
		for _, s := range ss {
			n, ok := nodeOf[s.sf]
			if !ok {
				n = base
				if s.sf != "" {
					if _, ok := frames[s.sf]; !ok {
						unknownFrame++
						continue
					}
					// Up from the sample's frame to one already placed,
					// to the root, to a link stackFrames does not define,
					// or to a frame met before on this walk (a cycle, cut
					// there).
					ids = ids[:0]
					broken := false
					for id := s.sf; ; {
						if p, ok := at[id]; ok {
							if p.node < 0 { // a cycle
								broken = true
							} else {
								n, broken = p.node, p.broken
							}
							break
						}
						at[id] = placed{node: -1}
						ids = append(ids, id)
						tf := frames[id]
						if !tf.hasParent {
							break
						}
						if _, ok := frames[tf.parent]; !ok {
							broken = true
							break
						}
						id = tf.parent
					}
					if broken {
						brokenLink++
					}
					for j := len(ids) - 1; j >= 0; j-- {
						f := frames[ids[j]].frame
						ck := [2]int32{int32(n), int32(f)}
						c, ok := child[ck]
						if !ok {
							c = profile.NodeID(len(prof.Nodes))
							prof.Nodes = append(prof.Nodes, profile.Node{Parent: n, Frame: f, InputID: int64(c - base)})
							child[ck] = c
						}
						n = c
						at[ids[j]] = placed{n, broken}
					}
				}
				nodeOf[s.sf] = n
			}
			prof.Nodes[n].HitCount++
			prof.Samples.Node.Append(n)
			prof.Samples.Time.Append(profile.TimeFromMicros(s.ts))
		}
		last := int32(prof.Samples.Len())
		th := profile.Thread{PID: r.numericID(k.pid), TID: r.numericID(k.tid), ProcessName: r.procName[k.pid],
			Nodes: profile.Range{Start: int32(base), End: int32(len(prof.Nodes))}, Samples: profile.Range{Start: first, End: last}}
		if t, ok := r.threadOf[k]; ok && r.threads[t].hasName {
			th.Name = r.threads[t].name
		}
		if last > first {
			th.Start, th.End = prof.Samples.Time.At(int(first)), prof.Samples.Time.At(int(last-1))
		}
		if prof.Samples.Line != nil {
			prof.Samples.Line = append(prof.Samples.Line, make([]int32, last-first)...)
		}
		if prof.Samples.Column != nil {
			prof.Samples.Column = append(prof.Samples.Column, make([]int32, last-first)...)
		}
		threadOfKey[k] = profile.ThreadID(len(prof.Threads))
		prof.Threads = append(prof.Threads, th)
	}
	prof.Diagnostics.Add("trace-samples", int64(len(samples)), "%d samples of the trace's top-level samples array (Trace Event Format) were read as sampled threads; DevTools ignores them", len(samples))
	prof.Diagnostics.Add("trace-sample-unknown-frame", unknownFrame, "%d top-level samples named a stack frame stackFrames does not define and were dropped", unknownFrame)
	prof.Diagnostics.Add("trace-frame-broken-parent", brokenLink, "%d stacks of top-level samples reach a parent stackFrames does not define (or a cycle) and were cut there", brokenLink)
	prof.Diagnostics.Add("trace-samples-unsorted", unsorted, "%d top-level samples were out of time order and were sorted", unsorted)
	prof.Diagnostics.Add("trace-samples-profiled-thread", skipped, "%d top-level samples belong to a thread with a CPU profile and were left out", skipped)
	return nil
}

// pidsOfTids returns, by tid, the raw pid of the first thread of the trace
// events with that tid. (Looked up by scanning the threads at each sample,
// a trace of many threads was read in time samples × threads.)
func (r *reader) pidsOfTids() map[profile.StringID][]byte {
	m := map[profile.StringID][]byte{}
	for _, th := range r.threads {
		if _, ok := m[th.key.tid]; !ok {
			m[th.key.tid] = []byte(r.b.P.Strings[th.key.pid])
		}
	}
	return m
}

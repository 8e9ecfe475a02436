package calls

import (
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/oracle"
	"github.com/jsprof/jsprof/profile"
)

// TestIntegrateSplit integrates every thread of the repository's profiles
// and traces, and of the corpus's, in two halves from split points at
// seven places of its samples, with and without ShowAllEvents, and
// requires the calls and flame-chart entries of the whole walk. It counts
// the points of each kind taken and those whose first half did not end as
// assumed (the whole walk is then made, which this compares too).
func TestIntegrateSplit(t *testing.T) {
	paths := repoProfiles(t)
	corpus, withCorpus := oracle.CorpusDir()
	if withCorpus {
		filepath.WalkDir(filepath.Join(corpus, "devtools"), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".gz") {
				paths = append(paths, path)
			}
			return nil
		})
	} else {
		t.Log("../shared/corpus is absent: the repository's profiles only")
	}
	defer func(v int) { splitIntegrateEntries = v }(splitIntegrateEntries)
	splitIntegrateEntries = math.MaxInt // the whole walks

	var mu sync.Mutex
	var bySample, byTask, fellBack int
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, path := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			p, err := format.ReadFile(path, nil, format.Options{})
			if err != nil {
				return // the repository's broken inputs
			}
			for th := range p.Threads {
				tl, err := NewTimeline(p, profile.ThreadID(th))
				if err != nil || tl.Len() < 32 {
					continue
				}
				for _, all := range []bool{false, true} {
					opts := IntegrateOptions{ShowAllEvents: all}
					wantCalls, wantEntries := tl.IntegrateEntries(opts)
					it := newIntegrator(tl, opts, true)
					seen := map[splitAt]bool{}
					for k := int32(1); k < 8; k++ {
						sp, ok := it.splitPointNear(it.sHi * k / 8)
						if rsp, rok := splitPointNearSearch(it, it.sHi*k/8); rsp != sp || rok != ok {
							t.Errorf("%s thread %d, near sample %d: split point %+v %v, by binary searches %+v %v", path, th, it.sHi*k/8, sp, ok, rsp, rok)
						}
						if !ok || seen[sp] {
							continue
						}
						seen[sp] = true
						cs, es, ok := it.integrateSplit(sp)
						mu.Lock()
						switch {
						case !ok:
							fellBack++
						case sp.event:
							byTask++
						default:
							bySample++
						}
						mu.Unlock()
						if !ok {
							continue
						}
						if !reflect.DeepEqual(cs, wantCalls) {
							t.Errorf("%s thread %d (ShowAllEvents %v) split at %+v: calls differ from the whole walk's (%d and %d)",
								filepath.Base(path), th, all, sp, len(cs), len(wantCalls))
						}
						if !reflect.DeepEqual(es, wantEntries) {
							t.Errorf("%s thread %d (ShowAllEvents %v) split at %+v: entries differ from the whole walk's (%d and %d)",
								filepath.Base(path), th, all, sp, len(es), len(wantEntries))
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d files: halves from a sample %d times, from a RunTask %d times; %d first halves ended otherwise",
		len(paths), bySample, byTask, fellBack)
	if bySample == 0 {
		t.Error("no thread was split at a sample")
	}
	if withCorpus && byTask == 0 {
		t.Error("no corpus thread was split at a RunTask")
	}
}

// splitTrace returns a trace of one thread: a profile of nodes (id, parent,
// name; scriptId 1 and line 1 for JS names, else a meta node) sampled at
// the given nodes every 100 µs from 1 s, and RunTask events at the given
// µs, 50 µs each.
func splitTrace(t *testing.T, nodes [][3]string, samples []int, tasks []int64) *profile.Profile {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"traceEvents":[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"CrRendererMain"}},`)
	b.WriteString(`{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":1,"ts":1000000,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"startTime":1000000}}},`)
	b.WriteString(`{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":1,"ts":1000000,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"cpuProfile":{"nodes":[`)
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(",")
		}
		frame := `"codeType":"other","functionName":"` + n[2] + `","scriptId":0`
		if !strings.HasPrefix(n[2], "(") {
			frame = `"codeType":"JS","columnNumber":1,"functionName":"` + n[2] + `","lineNumber":1,"scriptId":1,"url":"a.js"`
		}
		b.WriteString(`{"callFrame":{` + frame + `},"id":` + n[0])
		if n[1] != "" {
			b.WriteString(`,"parent":` + n[1])
		}
		b.WriteString("}")
	}
	b.WriteString(`],"samples":[`)
	for i, s := range samples {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(strconv.Itoa(s))
	}
	b.WriteString(`]},"timeDeltas":[`)
	for i := range samples {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("100")
	}
	b.WriteString(`]}}}`)
	for _, ts := range tasks {
		fmt.Fprintf(&b, `,{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":%d,"dur":50,"cat":"disabled-by-default-devtools.timeline","args":{}}`, ts)
	}
	b.WriteString("]}")
	p, err := chrometrace.ParseBytes([]byte(b.String()), chrometrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIntegrateSplitState checks the two states the halves assume on
// traces made for them: a RunTask whose start ends calls still on the JS
// stack (the first half must end them there, as the task's start does in
// the whole walk), and a sample after a (program) sample that leaves a
// call on the JS stack (a JS function with the (program) node's script
// id, name and line: DevTools' sameNode keeps it), where the halves must
// not be taken.
func TestIntegrateSplitState(t *testing.T) {
	defer func(v int) { splitIntegrateEntries = v }(splitIntegrateEntries)
	whole := func(tl *Timeline) ([]Call, []Entry) {
		splitIntegrateEntries = math.MaxInt
		return tl.IntegrateEntries(IntegrateOptions{})
	}
	t.Run("task ends calls", func(t *testing.T) {
		// f > g sampled outside any event (fake JS invocations), then a
		// task starts at 1,000,450 µs, between the 4th and 5th samples.
		nodes := [][3]string{{"1", "", "(root)"}, {"2", "1", "(program)"}, {"3", "1", "(idle)"}, {"4", "1", "f"}, {"5", "4", "g"}}
		p := splitTrace(t, nodes, []int{5, 5, 5, 5, 4, 5, 3, 5, 5}, []int64{1_000_450})
		tl, err := NewTimeline(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		wantCalls, wantEntries := whole(tl)
		it := newIntegrator(tl, IntegrateOptions{}, true)
		sp := splitAt{i0: 0, j0: 4, event: true}
		if it.sampleTs(3) >= it.evStart(0) || it.sampleTs(4) <= it.evStart(0) {
			t.Fatalf("the task is not between samples 3 and 4: %v %v %v", it.sampleTs(3), it.evStart(0), it.sampleTs(4))
		}
		cs, es, ok := it.integrateSplit(sp)
		if !ok {
			t.Fatal("the halves were not taken at the task")
		}
		if !reflect.DeepEqual(cs, wantCalls) || !reflect.DeepEqual(es, wantEntries) {
			t.Errorf("split at the task:\n%+v\nwhole:\n%+v", cs, wantCalls)
		}
	})
	t.Run("call kept past (program)", func(t *testing.T) {
		// Node 6 is a second (program) node, which DevTools does not take
		// for the meta node (node 2, found first) and pushes as a call;
		// a sample at 2 keeps its call on the stack (same script id, name
		// and line).
		nodes := [][3]string{{"1", "", "(root)"}, {"2", "1", "(program)"}, {"3", "1", "(idle)"}, {"4", "1", "f"}, {"6", "1", "(program)"}}
		var samples []int
		for range 40 {
			samples = append(samples, 6, 6, 2, 4, 4, 3)
		}
		p := splitTrace(t, nodes, samples, nil)
		tl, err := NewTimeline(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !tl.sameID(tl.Program, 1) {
			t.Fatalf("the meta node found is not node 2 (expanded %d)", tl.Program)
		}
		wantCalls, wantEntries := whole(tl)
		it := newIntegrator(tl, IntegrateOptions{}, true)
		j := int32(3) // after the first sample at 6
		if it.nodeKey[tl.Sample(0)] != it.nodeKey[tl.Sample(2)] {
			t.Fatal("node 2 and the (program) node have different keys: the case is not made")
		}
		cs, es, ok := it.integrateSplit(splitAt{j0: j})
		if ok {
			t.Errorf("the halves were taken with a call on the JS stack (calls equal the whole walk's: %v)",
				reflect.DeepEqual(cs, wantCalls) && reflect.DeepEqual(es, wantEntries))
		}
		splitIntegrateEntries = 0
		if cs, es := tl.IntegrateEntries(IntegrateOptions{}); !reflect.DeepEqual(cs, wantCalls) || !reflect.DeepEqual(es, wantEntries) {
			t.Error("Integrate with the halves refused: not the whole walk's calls")
		}
	})
}

// splitPointNearSearch is splitPointNear as it was before firstSampleFrom,
// each RunTask's first sample found by a binary search of all the samples:
// the point must be the same.
func splitPointNearSearch(it *integrator, mid int32) (splitAt, bool) {
	return it.splitPointNearBy(mid, func(_ int32, ts float64) int32 {
		return int32(sort.Search(int(it.sHi), func(k int) bool { return it.sampleTs(int32(k)) >= ts }))
	})
}

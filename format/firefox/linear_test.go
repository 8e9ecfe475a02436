package firefox_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// TestSharedTablesLinear checks that a processed profile whose threads share
// their tables (version 75: strings, functions, frames and stacks under
// "shared") is read in memory linear in its size, and that each thread gets
// the nodes of the stacks its samples reach, not every shared stack. Each
// thread read the shared tables again (its own copy of the strings, every
// function interned again) and made a node for every shared stack: T threads
// sharing S stacks cost T×S, and 2,000 threads sharing a tree of 2,000
// stacks (a 220 KB file) allocated 1.8 GB. It does not run in parallel, to
// measure its allocations alone.
func TestSharedTablesLinear(t *testing.T) {
	const threads, stacks, perThread = 1000, 1000, 3
	// Stack i is function i called by stack (i-1)/2: a binary tree, so that
	// a sample reaches about ten stacks.
	prefix := func(i int) int { return (i - 1) / 2 }
	sampled := func(th, k int) int { return (th*7919 + k*104729) % stacks }
	list := func(n int, f func(int) string) string {
		s := make([]string, n)
		for i := range s {
			s[i] = f(i)
		}
		return strings.Join(s, ",")
	}
	var b strings.Builder
	b.WriteString(`{"meta":{"version":36,"preprocessedProfileVersion":75,"interval":1,"startTime":0},"threads":[`)
	for th := range threads {
		if th > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"t` + strconv.Itoa(th) + `","pid":"1","tid":"` + strconv.Itoa(th+1) +
			`","samples":{"length":` + strconv.Itoa(perThread) +
			`,"stack":[` + list(perThread, func(k int) string { return strconv.Itoa(sampled(th, k)) }) +
			`],"time":[` + list(perThread, strconv.Itoa) + `]}}`)
	}
	b.WriteString(`],"shared":{"stringArray":["https://x.test/a.js",` + list(stacks, func(i int) string { return `"f` + strconv.Itoa(i) + `"` }) + `],` +
		`"sources":{"length":1,"filename":[0]},` +
		`"funcTable":{"length":` + strconv.Itoa(stacks) + `,"name":[` + list(stacks, func(i int) string { return strconv.Itoa(i + 1) }) +
		`],"source":[` + list(stacks, func(int) string { return "0" }) + `],"lineNumber":[` + list(stacks, func(i int) string { return strconv.Itoa(i + 1) }) + `]},` +
		`"frameTable":{"length":` + strconv.Itoa(stacks) + `,"func":[` + list(stacks, strconv.Itoa) + `]},` +
		`"stackTable":{"length":` + strconv.Itoa(stacks) + `,"frame":[` + list(stacks, strconv.Itoa) +
		`],"prefix":[null,` + list(stacks-1, func(i int) string { return strconv.Itoa(prefix(i + 1)) }) + `]}}}`)
	data := []byte(b.String())

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := firefox.ParseBytes(data)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}

	// Each thread's nodes: its root and the stacks its samples reach, each
	// sample's node on the path of its stack.
	wantNodes, wrong := 0, 0
	for th := range threads {
		reached := map[int]bool{}
		for k := range perThread {
			for s := sampled(th, k); !reached[s]; s = prefix(s) {
				reached[s] = true
				if s == 0 {
					break
				}
			}
		}
		wantNodes += 1 + len(reached)
		thr := p.Threads[th]
		if got := int(thr.Nodes.End - thr.Nodes.Start); got != 1+len(reached) {
			if wrong++; wrong == 1 {
				t.Errorf("thread %d: %d nodes, want %d", th, got, 1+len(reached))
			}
		}
		for k := range perThread {
			var got, want []string
			for n := p.Samples.Node.At(int(thr.Samples.Start) + k); n != thr.Root(); n = p.Nodes[n].Parent {
				got = append(got, p.Str(p.Frames[p.Nodes[n].Frame].Name))
			}
			for s := sampled(th, k); ; s = prefix(s) {
				want = append(want, "f"+strconv.Itoa(s))
				if s == 0 {
					break
				}
			}
			if strings.Join(got, ";") != strings.Join(want, ";") {
				t.Fatalf("thread %d, sample %d: stack %s, want %s", th, k, strings.Join(got, ";"), strings.Join(want, ";"))
			}
		}
	}
	if wrong > 1 {
		t.Errorf("and %d threads more with the wrong number of nodes", wrong-1)
	}
	if len(p.Nodes) != wantNodes {
		t.Errorf("got %d nodes, want %d (the stacks the samples reach; every shared stack in every thread would be %d)",
			len(p.Nodes), wantNodes, threads*(stacks+1))
	}
	if len(p.Frames) != stacks+1 {
		t.Errorf("got %d frames, want %d", len(p.Frames), stacks+1)
	}
	// Linear: about 70 bytes allocated a byte of input, most of them the
	// decoded JSON values (a number every few bytes here). Reading the
	// shared tables in every thread and making a node for every shared
	// stack: 3,700 here (470 MB). Reading any one of the shared tables
	// again in every thread passes 150: the strings 200, the functions and
	// the stacks (which build the paths of their errors) 900 and 1,300.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading %d bytes allocated %d, %.1f a byte", len(data), alloc, float64(alloc)/float64(len(data)))
	if alloc > 150*uint64(len(data)) {
		t.Errorf("reading %d bytes (%d threads sharing %d stacks) allocated %d bytes, %.0f a byte", len(data), threads, stacks, alloc, float64(alloc)/float64(len(data)))
	}
}

// Write takes time linear in the stacks and their paths, not in their
// frames, on the deep shapes of 20,000 frames: it hashed every frame of
// every stack and walked each new stack's prefixes (0.75 s per shape).
func TestWriteDeepLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("stacks 20 k frames deep")
	}
	for _, shape := range proftest.DeepShapes {
		t.Run(shape, func(t *testing.T) {
			data, err := proftest.DeepCPUProfile(shape, 20_000)
			if err != nil {
				t.Fatal(err)
			}
			p, err := format.Parse(data, format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := session.New(shape, p, session.Options{})
			stacks := threadStacks(t, s, view.Options{})
			if stacks[0].Paths == nil {
				t.Fatal("the session's stacks have no paths")
			}
			var werr error
			fuzzcheck.Speed(t, data, func() { werr = firefox.Write(io.Discard, s.Profile, stacks, opts) })
			if werr != nil {
				t.Fatal(werr)
			}
		})
	}
}

// The profile written from the stacks' paths is the one written from
// their frames (without ThreadStacks.Paths, or with one that fails its
// check), byte for byte, threads with and without paths mixed.
func TestWritePathsSameAsFrames(t *testing.T) {
	t.Parallel()
	var sessions []*session.Session
	var names []string
	for _, shape := range proftest.DeepShapes {
		data, err := proftest.DeepCPUProfile(shape, 300)
		if err != nil {
			t.Fatal(err)
		}
		p, err := format.Parse(data, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, session.New(shape, p, session.Options{}))
		names = append(names, shape)
	}
	files, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata profiles: %v", err)
	}
	trace := filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", "devtools", "two-workers.json.gz")
	if _, err := os.Stat(trace); err == nil {
		files = append(files, trace) // three threads
	} else {
		t.Logf("%s is absent (the shared corpus is not next to this checkout): no case of several threads", trace)
	}
	for _, f := range files {
		sessions = append(sessions, load(t, f))
		names = append(names, filepath.Base(f))
	}
	views := []view.Options{{}, {View: view.JS, CollapseRecursion: true}}
	compared := 0
	for k, s := range sessions {
		for _, vo := range views {
			stacks := threadStacks(t, s, vo)
			variant := func(alter func(i int, ts *profile.ThreadStacks)) []profile.ThreadStacks {
				out := slices.Clone(stacks)
				for i := range out {
					alter(i, &out[i])
				}
				return out
			}
			want := written(t, s, variant(func(_ int, ts *profile.ThreadStacks) { ts.Paths = nil }))
			for name, alt := range map[string][]profile.ThreadStacks{
				"paths": stacks,
				"paths of every other thread": variant(func(i int, ts *profile.ThreadStacks) {
					if i%2 == 1 {
						ts.Paths = nil
					}
				}),
				"paths that fail their check": variant(func(_ int, ts *profile.ThreadStacks) {
					ts.Paths = &profile.PathTree{Parent: []int32{-1, 0}, Frame: []profile.FrameID{-1, profile.FrameID(len(s.Profile.Frames))}}
				}),
			} {
				if got := written(t, s, alt); !bytes.Equal(got, want) {
					t.Errorf("%s, view %v, %s: the profile differs from that written from the frames", names[k], vo, name)
				}
				compared++
			}
		}
	}
	t.Logf("%d profiles compared", compared)
}

func written(t *testing.T, s *session.Session, stacks []profile.ThreadStacks) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := firefox.Write(&b, s.Profile, stacks, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

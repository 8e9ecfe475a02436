package folded_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// hostileProfile returns a profile whose frames' labels are prefixes of
// one another, differ at bytes below and above ';' (':' is 0x3A, '<'
// 0x3C), are the same for distinct frames ("a;b" and "a:b", "" and
// "(anonymous)", a name with and without a URL line) or are not ASCII.
func hostileProfile() *profile.Profile {
	p := &profile.Profile{Strings: []string{""}}
	str := func(s string) profile.StringID {
		p.Strings = append(p.Strings, s)
		return profile.StringID(len(p.Strings) - 1)
	}
	names := []string{"f", "f1", "f10", "f1 0", "f0", "f:", "f<", "f!", "f/", "f~", "f\x7f", "f;", "f;1",
		"", "(anonymous)", "a;b", "a:b", "a\nb", "a b", "a", "é", "e\u0301", "日本", "\U0001F600", "ff", "f 1"}
	for _, n := range names {
		p.Frames = append(p.Frames, profile.Frame{Name: str(n), Line: -1, Column: -1})
	}
	url := str("a.js")
	for _, n := range []string{"f", "f1", ""} {
		p.Frames = append(p.Frames,
			profile.Frame{Name: str(n), URL: url, Line: 0, Column: 0},
			profile.Frame{Name: str(n), URL: url, Line: 9, Column: -1},
			profile.Frame{Name: str(n), URL: url, Line: -1, Column: -1})
	}
	return p
}

var hostileHeads = []string{"", "", "t", "t1", "t1 (pid 1 tid 2)", "t;1", "t:1", "f", "f1", "a;b", "日本"}

// materialised writes lines the way the Writer did before it kept them as
// a trie: every line's text made whole, weights summed by text, the texts
// sorted.
func materialised(p *profile.Profile, heads []string, stacks [][]profile.FrameID, weights []profile.Time) []byte {
	byText := map[string]profile.Time{}
	for i, frames := range stacks {
		if len(frames) == 0 || weights[i] <= 0 {
			continue
		}
		var parts []string
		if heads[i] != "" {
			parts = append(parts, strings.NewReplacer(";", ":", "\n", " ", "\r", " ").Replace(heads[i]))
		}
		for _, f := range frames {
			parts = append(parts, folded.Label(p, &p.Frames[f]))
		}
		byText[strings.Join(parts, ";")] += weights[i]
	}
	texts := make([]string, 0, len(byText))
	for k := range byText {
		texts = append(texts, k)
	}
	slices.Sort(texts)
	var b bytes.Buffer
	for _, k := range texts {
		fmt.Fprintf(&b, "%s %d\n", k, byText[k])
	}
	return b.Bytes()
}

func written(t *testing.T, fw *folded.Writer) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := fw.WriteTo(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(b.Len()) {
		t.Errorf("WriteTo returned %d, wrote %d bytes", n, b.Len())
	}
	return b.Bytes()
}

// The lines come in the byte order of their text, as a sort of the texts
// made whole gives it, whatever the labels: prefixes of one another
// ("f1", "f10", "f1 0"), bytes on either side of ';', distinct frames of
// one label, non-ASCII, several heads.
func TestWriterOrder(t *testing.T) {
	t.Parallel()
	p := hostileProfile()
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		var heads []string
		var stacks [][]profile.FrameID
		var weights []profile.Time
		fw := folded.NewWriter(p)
		for range 1 + r.IntN(300) {
			var frames []profile.FrameID
			// Often a stack that shares a prefix with the last one.
			if len(stacks) > 0 && r.IntN(2) == 0 {
				last := stacks[len(stacks)-1]
				frames = append(frames, last[:r.IntN(len(last)+1)]...)
			}
			for range r.IntN(6) {
				frames = append(frames, profile.FrameID(r.IntN(len(p.Frames))))
			}
			head := hostileHeads[r.IntN(len(hostileHeads))]
			w := profile.Time(r.IntN(1000) - 50)
			heads, stacks, weights = append(heads, head), append(stacks, frames), append(weights, w)
			switch r.IntN(3) {
			case 0:
				fw.AddWithHead(head, frames, w)
			case 1:
				if head == "" {
					fw.Add(frames, w)
				} else {
					fw.AddWithHead(head, frames, w)
				}
			case 2:
				fw.AddStack(head, &profile.Stack{Frames: frames, Weight: w})
			}
		}
		want := materialised(p, heads, stacks, weights)
		if got := written(t, fw); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: lines out of order or weights wrong:\n%s", seed, proftest.Diff("sorted texts", "WriteTo", want, got))
		}
	}
}

// randomPaths returns a random tree of n paths of p's frames.
func randomPaths(r *rand.Rand, p *profile.Profile, n int) *profile.PathTree {
	t := &profile.PathTree{Parent: []int32{-1}, Frame: []profile.FrameID{-1}}
	for i := 1; i < n; i++ {
		t.Parent = append(t.Parent, int32(r.IntN(i)))
		t.Frame = append(t.Frame, profile.FrameID(r.IntN(len(p.Frames))))
	}
	return t
}

// stacksOf returns the stacks of a thread over paths, with or without
// their frames.
func stacksOf(paths *profile.PathTree, stackPaths []int32, weights []profile.Time, withFrames bool) profile.ThreadStacks {
	return profile.ThreadStacks{Paths: paths, Stacks: func(yield func(*profile.Stack) bool) {
		var s profile.Stack
		for i, q := range stackPaths {
			s = profile.Stack{Path: q, Weight: weights[i]}
			if withFrames {
				s.Frames = paths.AppendFrames([]profile.FrameID{}, q)
			}
			if !yield(&s) {
				return
			}
		}
	}}
}

// AddThread writes the same lines whether a stack's line is found from
// its path's (valid ThreadStacks.Paths, with or without frames) or from
// its frames, including for several threads added under one head (as
// merge does), whose paths are not each other's.
func TestAddThreadPaths(t *testing.T) {
	t.Parallel()
	p := hostileProfile()
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 2))
		var heads []string
		var stacks [][]profile.FrameID
		var weights []profile.Time
		type thread struct {
			head    string
			ts      profile.ThreadStacks
			paths   []int32
			weights []profile.Time
		}
		var threads []thread
		for range 1 + r.IntN(4) {
			th := thread{head: hostileHeads[r.IntN(len(hostileHeads))]}
			tree := randomPaths(r, p, 1+r.IntN(60))
			for range r.IntN(200) {
				q := int32(r.IntN(tree.Len()))
				w := profile.Time(r.IntN(1000) - 50)
				th.paths, th.weights = append(th.paths, q), append(th.weights, w)
				heads, stacks, weights = append(heads, th.head), append(stacks, tree.AppendFrames(nil, q)), append(weights, w)
			}
			th.ts = stacksOf(tree, th.paths, th.weights, false)
			threads = append(threads, th)
		}
		want := materialised(p, heads, stacks, weights)
		for _, variant := range []struct {
			name string
			add  func(*folded.Writer, thread)
		}{
			{"paths alone", func(fw *folded.Writer, th thread) { fw.AddThread(th.head, th.ts) }},
			{"paths and frames", func(fw *folded.Writer, th thread) {
				fw.AddThread(th.head, stacksOf(th.ts.Paths, th.paths, th.weights, true))
			}},
			{"frames alone", func(fw *folded.Writer, th thread) {
				for s := range stacksOf(th.ts.Paths, th.paths, th.weights, true).Stacks {
					fw.AddWithHead(th.head, s.Frames, s.Weight)
				}
			}},
		} {
			fw := folded.NewWriter(p)
			for _, th := range threads {
				variant.add(fw, th)
			}
			if got := written(t, fw); !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %s:\n%s", seed, variant.name, proftest.Diff("sorted texts", "WriteTo", want, got))
			}
		}
	}
}

// deepStacks returns a deep shape of n frames and its first thread's
// stacks under the default view, without frames (session PathStacks, as
// convert gives them).
func deepStacks(t *testing.T, shape string, n int) ([]byte, *profile.Profile, profile.ThreadStacks) {
	t.Helper()
	data, err := proftest.DeepCPUProfile(shape, n)
	if err != nil {
		t.Fatal(err)
	}
	p, err := format.Parse(data, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := session.New(shape, p, session.Options{})
	ts, err := s.Threads()[0].PathStacks(t.Context(), view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ts.Paths == nil {
		t.Fatal("the session's stacks have no paths")
	}
	return data, s.Profile, ts
}

// countWriter counts the bytes written to it and keeps none.
type countWriter struct{ n int64 }

func (c *countWriter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

// The Writer's memory grows with its input, not with its output, which
// grows as the square of the depth (a chain of 20,000 frames is 3.6 GB
// of text); and its work, what it does besides handing the bytes to the
// io.Writer, with its input too. It kept every line's text until WriteTo
// sorted them: on the deep shapes of 20,000 frames, 5.4 GB and 8 to 14 s.
func TestDeepLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("stacks 20 k frames deep")
	}
	for _, shape := range proftest.DeepShapes {
		t.Run(shape, func(t *testing.T) {
			// Bytes allocated by AddThread and WriteTo at 5,000 and
			// 20,000 frames: 4 times the input, and about 4 to 5 times
			// the memory (16 times the text before). The bound is 8:
			// tables that double as they grow can take up to twice
			// their share at one size and not at the other.
			var alloc [2]uint64
			var out [2]int64
			for i, n := range []int{5_000, 20_000} {
				_, p, ts := deepStacks(t, shape, n)
				var m0, m1 runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m0)
				fw := folded.NewWriter(p)
				fw.AddThread("", ts)
				var c countWriter
				if _, err := fw.WriteTo(&c); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&m1)
				alloc[i], out[i] = m1.TotalAlloc-m0.TotalAlloc, c.n
			}
			t.Logf("%d and %d bytes allocated for %d and %d bytes of output", alloc[0], alloc[1], out[0], out[1])
			if alloc[1] > 8*alloc[0] {
				t.Errorf("%d bytes allocated at 5,000 frames, %d at 20,000: %.1f times as many for 4 times the frames",
					alloc[0], alloc[1], float64(alloc[1])/float64(alloc[0]))
			}

			data, p, ts := deepStacks(t, shape, 20_000)
			var werr error
			fuzzcheck.Speed(t, data, func() {
				fw := folded.NewWriter(p)
				fw.AddThread("", ts)
				_, werr = fw.WriteTo(io.Discard)
			})
			if werr != nil {
				t.Fatal(werr)
			}
		})
	}
}

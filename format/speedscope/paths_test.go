package speedscope_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// withoutPaths returns ts without its path tree, each stack's Path kept
// (keep) or 0: Write then finds the stacks' paths from their frames.
func withoutPaths(ts profile.ThreadStacks, keep bool) profile.ThreadStacks {
	return profile.ThreadStacks{Thread: ts.Thread, Stacks: func(yield func(*profile.Stack) bool) {
		for st := range ts.Stacks {
			c := *st
			if !keep {
				c.Path = 0
			}
			if !yield(&c) {
				return
			}
		}
	}}
}

// checkPaths writes stacks in each form with their path tree and without
// it (each stack's Path kept, then not): the files must be the same byte
// for byte. The sizes Write computes of the two forms to choose one must
// be those of the forms as written.
func checkPaths(t *testing.T, p *profile.Profile, stacks []profile.ThreadStacks) {
	t.Helper()
	variants := map[string][]profile.ThreadStacks{}
	for _, keep := range []bool{true, false} {
		var v []profile.ThreadStacks
		for _, ts := range stacks {
			v = append(v, withoutPaths(ts, keep))
		}
		variants[fmt.Sprintf("without paths, Path kept %v", keep)] = v
	}
	for _, fm := range forms {
		var want bytes.Buffer
		if err := fm.write(&want, p, stacks, speedscope.Options{}); err != nil {
			t.Fatal(err)
		}
		for name, v := range variants {
			var got bytes.Buffer
			if err := fm.write(&got, p, v, speedscope.Options{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s form, %s: %d bytes differ from the %d written with paths", fm.name, name, got.Len(), want.Len())
			}
		}
	}
	sizes, err := speedscope.FormSizes(p, stacks)
	if err != nil {
		t.Fatal(err)
	}
	for i, sz := range sizes {
		if sz[0] != sz[1] || sz[2] != sz[3] {
			t.Errorf("profile %d: sampled form computed %d bytes, written %d; evented measured %d, written %d", i, sz[0], sz[1], sz[2], sz[3])
		}
	}
}

// TestWritePaths checks that the stacks of testdata profiles and of the
// deep shapes, under two views, are written the same from their paths
// (the session's path tree) and from their frames.
func TestWritePaths(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(proftest.RepoRoot(), "testdata", "node", "*.cpuprofile"))
	if len(paths) == 0 {
		t.Fatal("no testdata profiles")
	}
	for _, path := range paths {
		p, err := format.ReadFile(path, nil, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := session.New(path, p, session.Options{})
			for _, vo := range []view.Options{{}, {View: view.JS}} {
				checkPaths(t, s.Profile, threadStacks(t, s, vo))
			}
		})
	}
	for _, shape := range proftest.DeepShapes {
		t.Run(shape, func(t *testing.T) {
			data, err := proftest.DeepCPUProfile(shape, 300)
			if err != nil {
				t.Fatal(err)
			}
			p, err := format.Parse(data, format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := session.New(shape, p, session.Options{})
			for _, vo := range []view.Options{{}, {View: view.JS}} {
				checkPaths(t, s.Profile, threadStacks(t, s, vo))
			}
		})
	}
}

// TestWriteOddPaths writes stacks from a path tree that has two paths of
// the same frames (siblings of one frame; a frame and its copy, which
// speedscope shows the same): the stacks of those paths are one stack to
// speedscope, merged when contiguous, as written from their frames.
func TestWriteOddPaths(t *testing.T) {
	p, err := format.Parse([]byte(cpuprofile("5,2,6")), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	frame := map[string]profile.FrameID{}
	for i, f := range p.Frames {
		frame[p.Str(f.Name)] = profile.FrameID(i)
	}
	mainF, f, g, prog := frame["main"], frame["f"], frame["g"], frame["(program)"]
	f2 := profile.FrameID(len(p.Frames))
	p.Frames = append(p.Frames, p.Frames[f])
	tree := &profile.PathTree{
		Parent: []int32{-1, 0, 1, 1, 0, 4, 4, 0, 0},
		Frame:  []profile.FrameID{-1, mainF, f, f2, mainF, f, g, prog, prog},
	}
	var stacks []profile.Stack
	for _, st := range []struct {
		at, weight profile.Time
		path       int32
	}{
		{0, 10, 2}, {10, 5, 3}, {15, 5, 5}, {20, 3, 6}, {23, 4, 1}, {27, 2, 4},
		{40, 6, 7}, {46, 1, 8}, {47, 2, 3}, {49, 1, 0}, {50, 2, 2},
	} {
		// Times from −25 ns: the sizes computed count the signs.
		stacks = append(stacks, profile.Stack{Frames: tree.AppendFrames(nil, st.path), Time: st.at - 25, Weight: st.weight, Path: st.path})
	}
	ts := stacksOf(0, stacks...)
	ts.Paths = tree
	all := []profile.ThreadStacks{ts}
	checkPaths(t, p, all)

	var buf bytes.Buffer
	if err := speedscope.WriteSampled(&buf, p, all, speedscope.Options{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	var w written
	if err := json.Unmarshal(buf.Bytes(), &w); err != nil {
		t.Fatal(err)
	}
	var got []string
	pr := w.Profiles[0]
	for i, st := range pr.Samples {
		var names []string
		for _, fr := range st {
			names = append(names, w.Shared.Frames[fr].Name)
		}
		got = append(got, fmt.Sprintf("%s %d", strings.Join(names, ";"), pr.Weights[i]))
	}
	want := []string{"main;f 20", "main;g 3", "main 6", "(program) 3", "(program) 3", "(program) 1", "main;f 2", "main;f 2"}
	if !slices.Equal(got, want) {
		t.Errorf("samples %q, want %q", got, want)
	}
}

// TestDigits checks the lengths of numbers' texts that Write computes to
// choose the smaller form.
func TestDigits(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, 99, 100, 12345, math.MaxInt64, -1, -9, -10, -100, math.MinInt64} {
		if got, want := speedscope.Digits(v), int64(len(strconv.FormatInt(v, 10))); got != want {
			t.Errorf("Digits(%d) = %d, want %d", v, got, want)
		}
	}
}

// TestWriteLinear checks that Write takes time in proportion to its input
// (fuzzcheck's budget per MiB of the .cpuprofile) on the deep shapes of
// 20 000 frames whose output is not quadratic: every stack a path of its
// own, as deep as the stacks before it and one more. Write copied each
// path's frames and compared each stack with the last in full (8 to 11 s
// and 2.6 GB on each). Zigzag is left out: its smaller form, sampled, is
// 1 GB (10 000 stacks of 20 000 frames).
func TestWriteLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20 000-frame stacks")
	}
	for _, shape := range []string{"chain", "recursion", "comb"} {
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
			fuzzcheck.Speed(t, data, func() {
				err = speedscope.Write(io.Discard, s.Profile, stacks, speedscope.Options{})
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

package svg

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// sessionSide returns the first thread's stacks of a profile under the
// default view, as a side of a differential graph.
func sessionSide(t *testing.T, name string, data []byte, vo view.Options) DiffSide {
	t.Helper()
	p, err := format.Parse(data, format.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := session.New(name, p, session.Options{})
	ts, err := s.Threads()[0].Stacks(t.Context(), vo)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if ts.Paths == nil {
		t.Fatalf("%s: the session's stacks have no paths", name)
	}
	return DiffSide{Profile: s.Profile, Stacks: ts, Key: func(f profile.FrameID) string {
		k := s.Profile.FunctionKey(f)
		return fmt.Sprintf("%q %q %d %d %t", s.Profile.Str(k.Name), s.Profile.Str(s.Profile.Frames[f].URL), k.Line, k.Column, k.Event)
	}}
}

// Write and WriteDiff take time linear in the stacks and their paths, not
// in their frames, on the deep shapes of 20,000 frames. They walked every
// frame of every stack: 5 s and 11 s per shape.
func TestDeepLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("stacks 20 k frames deep")
	}
	for _, shape := range proftest.DeepShapes {
		t.Run(shape, func(t *testing.T) {
			data, err := proftest.DeepCPUProfile(shape, 20_000)
			if err != nil {
				t.Fatal(err)
			}
			side := sessionSide(t, shape, data, view.Options{})
			var werr error
			fuzzcheck.Speed(t, data, func() { werr = Write(io.Discard, side.Profile, side.Stacks, Options{}) })
			if werr != nil {
				t.Fatal(werr)
			}
			fuzzcheck.Speed(t, data, func() { werr = WriteDiff(io.Discard, side, side, DiffOptions{}) })
			if werr != nil {
				t.Fatal(werr)
			}
		})
	}
}

// The graphs drawn from the stacks' paths are those drawn from their
// frames (without ThreadStacks.Paths, or with one that fails its check),
// byte for byte, differential graphs included, whose sides have paths the
// other lacks.
func TestPathsSameAsFrames(t *testing.T) {
	t.Parallel()
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	for _, shape := range proftest.DeepShapes {
		data, err := proftest.DeepCPUProfile(shape, 300)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{shape, data})
	}
	files, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata profiles: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{filepath.Base(f), data})
	}
	views := []view.Options{{}, {View: view.JS, CollapseRecursion: true}}
	noPaths := func(s DiffSide) DiffSide { s.Stacks.Paths = nil; return s }
	badPaths := func(s DiffSide) DiffSide {
		s.Stacks.Paths = &profile.PathTree{Parent: []int32{-1, 0}, Frame: []profile.FrameID{-1, profile.FrameID(len(s.Profile.Frames))}}
		return s
	}
	compared := 0
	for _, vo := range views {
		sides := make([]DiffSide, len(inputs))
		for i, in := range inputs {
			sides[i] = sessionSide(t, in.name, in.data, vo)
		}
		for i, in := range inputs {
			s := sides[i]
			want := drawn(t, func(w io.Writer) error { return Write(w, s.Profile, noPaths(s).Stacks, Options{MinWidth: -1}) })
			for _, alt := range []DiffSide{s, badPaths(s)} {
				if got := drawn(t, func(w io.Writer) error { return Write(w, s.Profile, alt.Stacks, Options{MinWidth: -1}) }); !bytes.Equal(got, want) {
					t.Errorf("%s, view %v: the graph from the paths differs from that from the frames", in.name, vo)
				}
				compared++
			}
			other := sides[(i+1)%len(sides)]
			for _, reverse := range []bool{false, true} {
				opts := DiffOptions{Options: Options{MinWidth: -1}, Reverse: reverse}
				want := drawn(t, func(w io.Writer) error { return WriteDiff(w, noPaths(other), noPaths(s), opts) })
				for _, pair := range [][2]DiffSide{{other, s}, {noPaths(other), s}, {other, noPaths(s)}, {badPaths(other), s}} {
					if got := drawn(t, func(w io.Writer) error { return WriteDiff(w, pair[0], pair[1], opts) }); !bytes.Equal(got, want) {
						t.Errorf("%s against %s, view %v, reverse %v: the graph from the paths differs from that from the frames",
							inputs[(i+1)%len(inputs)].name, in.name, vo, reverse)
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d graphs compared", compared)
}

func drawn(t *testing.T, write func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

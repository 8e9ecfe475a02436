package profile_test

import (
	"slices"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

func TestStack(t *testing.T) {
	t.Parallel()
	p := testProfile()
	tests := []struct {
		n    profile.NodeID
		want []profile.NodeID
	}{
		{nHot0, []profile.NodeID{nHot0, nMain0}},
		{nMain0, []profile.NodeID{nMain0}},
		{nRoot0, nil},
		{nNative1, []profile.NodeID{nNative1, nMain1}},
		{profile.NoNode, nil},
	}
	for _, tt := range tests {
		if got := slices.Collect(p.Stack(tt.n)); !slices.Equal(got, tt.want) {
			t.Errorf("Stack(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	// Stopping early stops the walk.
	for n := range p.Stack(nHot0) {
		if n != nHot0 {
			t.Errorf("first node %d, want %d", n, nHot0)
		}
		break
	}
}

func TestDepths(t *testing.T) {
	t.Parallel()
	if got, want := testProfile().Depths(), []int32{-1, 0, 1, 0, 0, -1, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestThreadSamples(t *testing.T) {
	t.Parallel()
	p := testProfile()
	s := p.ThreadSamples(1)
	if !slices.Equal(s.Node.Wide(), []profile.NodeID{nMain1, nNative1, nNative1}) || !slices.Equal(s.Time.Wide(), []profile.Time{50, 150, 250}) ||
		!slices.Equal(s.Line, []int32{1, 0, 0}) || !slices.Equal(s.Column, []int32{1, 0, 0}) || s.Len() != 3 {
		t.Errorf("thread 1: got %+v", s)
	}
	p.Samples.Line, p.Samples.Column = nil, nil
	if s := p.ThreadSamples(0); s.Line != nil || s.Column != nil || s.Len() != 5 {
		t.Errorf("thread 0 without lines: got %+v, want no line or column columns", s)
	}
}

func TestAccessors(t *testing.T) {
	t.Parallel()
	p := testProfile()
	if got := p.Str(p.NodeFrame(nHot0).Name); got != "hot" {
		t.Errorf("name of node %d: got %q, want hot", nHot0, got)
	}
	if got := p.Str(0); got != "" {
		t.Errorf("Str(0) = %q, want empty", got)
	}
	if got := p.Threads[1].Root(); got != nRoot1 {
		t.Errorf("thread 1 root: got %d, want %d", got, nRoot1)
	}
	if got := p.Samples.Len(); got != 8 {
		t.Errorf("Samples.Len() = %d, want 8", got)
	}
}

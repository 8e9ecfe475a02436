package pprof_test

import (
	"bytes"
	"path/filepath"
	"testing"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// passes Validate and can be written again (its session's stacks). Seeds:
// the written fixtures, gzipped and not.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/node/*.cpuprofile")
	for _, file := range files {
		p, err := format.ReadFile(file, nil, format.Options{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(write(f, analyse(f, p, view.Options{})))
		pp, err := pprofile.ParseData(write(f, analyse(f, p, view.Options{})))
		if err != nil {
			f.Fatal(err)
		}
		var raw bytes.Buffer
		if err := pp.WriteUncompressed(&raw); err != nil {
			f.Fatal(err)
		}
		f.Add(raw.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) { return pprof.Parse(bytes.NewReader(data)) })
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted invalid profile: %v", err)
		}
		s := session.New("fuzz", p, session.Options{})
		var stacks []profile.ThreadStacks
		for _, th := range s.Threads() {
			ts, err := th.Stacks(t.Context(), view.Options{})
			if err != nil {
				t.Fatalf("no stacks for what was read: %v", err)
			}
			stacks = append(stacks, ts)
		}
		var got, want bytes.Buffer
		if err := pprof.Write(&got, s.Profile, stacks, pprof.Options{}); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		// The profile encoded here is the one pprof's own Write makes.
		if err := pprof.WriteWithLibrary(&want, s.Profile, stacks, pprof.Options{}); err != nil {
			t.Fatalf("the library cannot write what was read: %v", err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("encoded %d bytes, the library %d", got.Len(), want.Len())
		}
	})
}

package pprof_test

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/pprof"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// passes Validate and can be written again. Seeds: the written fixtures,
// gzipped and not.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/node/*.cpuprofile")
	for _, file := range files {
		p, err := format.ReadFile(file, nil, format.Options{})
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := pprof.Write(&buf, p, pprof.Options{}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
		pp, err := pprofile.ParseData(buf.Bytes())
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
		p, err := pprof.Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted invalid profile: %v", err)
		}
		if err := pprof.Write(io.Discard, p, pprof.Options{}); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
	})
}

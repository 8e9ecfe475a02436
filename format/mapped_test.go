package format

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
)

// bigFile writes what write makes to a temporary file named name, above
// the mapping threshold, and returns its path and bytes.
func bigFile(t *testing.T, name string, write func(*bytes.Buffer) error) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 9<<20 {
		t.Fatalf("generated %s of %d bytes, want one above the mapping threshold", name, buf.Len())
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

// bigProfile writes a generated .cpuprofile above the mapping threshold.
func bigProfile(t *testing.T) (string, []byte) {
	t.Helper()
	sh, _ := proftest.ShapeByName("typescript")
	return bigFile(t, "big.cpuprofile", func(buf *bytes.Buffer) error { return proftest.WriteShapedCPUProfile(buf, sh, 0.3, 9) })
}

// bigTrace writes a generated trace above the mapping threshold.
func bigTrace(t *testing.T) (string, []byte) {
	t.Helper()
	return bigFile(t, "big.json", func(buf *bytes.Buffer) error {
		_, _, err := proftest.WriteLargeTrace(buf, 2, 10<<20)
		return err
	})
}

// readCut maps the file at path, cuts the file to 1 MB and reads the
// mapping as the named format does: the reader must fail with an error,
// not crash on the fault.
func readCut(t *testing.T, path, format string) {
	t.Helper()
	st, err := input.Open(path, nil, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := st.Map()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := os.Truncate(path, 1<<20); err != nil {
		t.Fatal(err)
	}
	f, _ := Lookup(format)
	_, err = f.parseMapped(m.Data, Options{}, mappedRelease(m, input.Options{}), func(lo, hi int64) { m.Release(lo, hi) })
	if err == nil || !strings.Contains(err.Error(), "changed while being read") {
		t.Fatalf("%s: err = %v, want a fault reported as an error", format, err)
	}
}

// TestMappedSameProfile checks that a .cpuprofile read from a mapped file
// (with its pages given back as the parser goes) is the profile Parse makes
// of the same bytes, and that progress reaches the end.
func TestMappedSameProfile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	path, data := bigProfile(t)
	st, err := input.Open(path, nil, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Map()
	st.Close()
	if err != nil {
		t.Fatalf("Map: %v", err)
	}
	m.Close()
	var last int64
	got, err := ReadFile(path, nil, Options{Input: input.Options{Progress: func(n int64) { last = max(last, n) }}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the profile read from the mapped file differs from Parse's")
	}
	if last < int64(len(data))/2 {
		t.Errorf("progress reached %d of %d bytes", last, len(data))
	}
}

// TestMappedTrace checks that a trace read from a mapped file, on two
// cores, is the profile the streaming reader makes of the same bytes, and
// that progress reaches the end without passing it; then that a file cut
// while it is being read gives an error, not a crash.
func TestMappedTrace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	path, data := bigTrace(t)
	var last int64
	got, err := ReadFile(path, nil, Options{Input: input.Options{Progress: func(n int64) { last = max(last, n) }}})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Lookup("trace")
	want, err := f.stream(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the trace read from the mapped file differs from the one streamed")
	}
	if last < int64(len(data))*3/4 || last > int64(len(data)) {
		t.Errorf("progress reached %d of %d bytes", last, len(data))
	}

	readCut(t, path, "trace")
}

// TestMappedTruncated truncates the mapped file before it is parsed: the
// reader must fail with an error, not crash on the fault.
func TestMappedTruncated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	path, _ := bigProfile(t)
	readCut(t, path, "cpuprofile")
}

// TestMappedCancel cancels the context before reading: the mapped read
// stops with the context's error.
func TestMappedCancel(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	path, _ := bigProfile(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadFile(path, nil, Options{Input: input.Options{Context: ctx}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// onlyReader hides a reader's type: a pipe, as far as input.Open can tell.
type onlyReader struct{ r *bytes.Reader }

func (o onlyReader) Read(b []byte) (int, error) { return o.r.Read(b) }

// TestReadMappedSameProfile reads a .cpuprofile that cannot be mapped as a
// file (a pipe, gzip, standard input at an offset) and one that is standard
// input redirected from a file: each must give the profile Parse makes of
// the same bytes, as the named file does.
func TestReadMappedSameProfile(t *testing.T) {
	path, data := bigProfile(t)
	want, err := Parse(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	gzPath := filepath.Join(t.TempDir(), "big.cpuprofile.gz")
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	stdinFile := func(path string, skip int64) *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if _, err := f.Seek(skip, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// Standard input at an offset is read from there: the document after
	// a byte another process has read.
	spaced := filepath.Join(t.TempDir(), "spaced.cpuprofile")
	if err := os.WriteFile(spaced, append([]byte("x"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		file  string
		stdin io.Reader
	}{
		{"pipe", "-", onlyReader{bytes.NewReader(data)}},
		{"gzip pipe", "-", onlyReader{bytes.NewReader(gz.Bytes())}},
		{"gzip file", gzPath, nil},
		{"stdin file", "-", stdinFile(path, 0)},
		{"stdin file at an offset", "-", stdinFile(spaced, 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadFile(c.file, c.stdin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Error("the profile differs from Parse's")
			}
		})
	}
}

// TestStdinFileMapped checks that standard input redirected from a file is
// mapped as the file is, and not when it has been read past its start.
func TestStdinFileMapped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	path, data := bigProfile(t)
	for _, skip := range []int64{0, 1} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Seek(skip, io.SeekStart)
		st, err := input.Open("-", f, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := st.Map()
		switch {
		case skip == 0 && err != nil:
			t.Errorf("standard input from a file: Map: %v", err)
		case skip == 0 && !bytes.Equal(m.Data, data):
			t.Error("standard input from a file: the mapping is not the file")
		case skip > 0 && err == nil:
			t.Error("standard input past its start was mapped from the file's start")
		}
		if err == nil {
			m.Close()
		}
		st.Close()
		f.Close()
	}
}

// errAfter is a pipe that breaks after n bytes.
type errAfter struct {
	r   io.Reader
	n   int
	err error
}

func (e *errAfter) Read(b []byte) (int, error) {
	if e.n <= 0 {
		return 0, e.err
	}
	k, err := e.r.Read(b[:min(len(b), e.n)])
	e.n -= k
	return k, err
}

// TestReadMappedErrors checks that reading standard input into memory
// mapped for it reports what reading it into the heap did: the size limit,
// a pipe that breaks, a gzip stream cut short. And the context still stops
// the parser.
func TestReadMappedErrors(t *testing.T) {
	_, data := bigProfile(t)
	broken := errors.New("broken pipe")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	for _, c := range []struct {
		name  string
		stdin io.Reader
		opts  Options
		want  error
		text  string
	}{
		{"limit", onlyReader{bytes.NewReader(data)}, Options{Input: input.Options{MaxBytes: 5 << 20}}, input.ErrTooLarge, ""},
		{"broken", &errAfter{r: bytes.NewReader(data), n: 3 << 20, err: broken}, Options{}, broken, ""},
		{"gzip cut", onlyReader{bytes.NewReader(gz.Bytes()[:gz.Len()/2])}, Options{}, nil, "gzip"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadFile("-", c.stdin, c.opts)
			if err == nil || c.want != nil && !errors.Is(err, c.want) || c.text != "" && !strings.Contains(err.Error(), c.text) {
				t.Fatalf("err = %v, want %v %q", err, c.want, c.text)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadFile("-", onlyReader{bytes.NewReader(data)}, Options{Input: input.Options{Context: ctx}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v, want context.Canceled", err)
	}
}

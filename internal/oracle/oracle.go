// Package oracle runs the reference DevTools trace engine (npm
// @paulirish/trace_engine, pinned in tools/oracle) on a file and reads back
// the ProfileCalls it dumps, for differential tests. It needs node and npm;
// tools/oracle/install.sh installs the engine on first use.
package oracle

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/jsprof/jsprof/internal/jsonscan"
)

// Call is one ProfileCall row of the engine's dump.
type Call struct {
	Ts, Dur, Self float64 // µs; Self is NaN when the call is not in the tree
	Name, URL     string
	Line, Column  int64
	ScriptID      string
	NodeID        int64
	SampleIndex   int64
	HasSelf       bool
}

// Entry is one flame-chart entry row of the dump.
type Entry struct {
	Level   int64
	Ts, Dur float64
	Name    string
	IsCall  bool
}

// Thread is one thread of the dump.
type Thread struct {
	PID, TID int64
	Name     string
	Calls    []Call
	Entries  []Entry // only with RunEntries
}

// Dump is what the engine computed for one file.
type Dump struct {
	Kind    string // "trace" or "cpuprofile"
	Threads []Thread
}

// Dir returns the tools/oracle directory of this repository.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "tools", "oracle")
}

// CorpusDir returns ../shared/corpus next to the repository, and whether it
// exists.
func CorpusDir() (string, bool) {
	d := filepath.Join(Dir(), "..", "..", "..", "shared", "corpus")
	st, err := os.Stat(d)
	return d, err == nil && st.IsDir()
}

var installOnce sync.Once
var installErr error

// Install installs the pinned engine if needed.
func Install() error {
	installOnce.Do(func() {
		cmd := exec.Command("bash", filepath.Join(Dir(), "install.sh"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			installErr = fmt.Errorf("tools/oracle/install.sh: %v\n%s", err, out.String())
		}
	})
	return installErr
}

// Run runs dump-profile-calls.mjs (--mode min --no-entries) on file and
// parses its output. tmpDir receives the dump.
func Run(file, tmpDir string, extra ...string) (*Dump, error) {
	return run(file, tmpDir, append([]string{"--no-entries"}, extra...))
}

// RunEntries is Run with the flame-chart entries.
func RunEntries(file, tmpDir string, extra ...string) (*Dump, error) {
	return run(file, tmpDir, extra)
}

func run(file, tmpDir string, extra []string) (*Dump, error) {
	if err := Install(); err != nil {
		return nil, err
	}
	out := filepath.Join(tmpDir, filepath.Base(file)+".oracle.json")
	args := append([]string{filepath.Join(Dir(), "dump-profile-calls.mjs"), file, "--mode", "min", "--out", out}, extra...)
	cmd := exec.Command("node", append([]string{"--max-old-space-size=8192"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("oracle on %s: %v\n%s", file, err, stderr.String())
	}
	data, err := os.ReadFile(out)
	os.Remove(out)
	if err != nil {
		return nil, err
	}
	return parse(data)
}

func parse(data []byte) (*Dump, error) {
	s := jsonscan.New(data)
	d := &Dump{}
	err := object(s, func(key string) error {
		switch key {
		case "summary":
			return object(s, func(k string) error {
				if k == "kind" {
					b, err := s.String()
					d.Kind = string(b)
					return err
				}
				return s.Skip()
			})
		case "threads":
			return array(s, func() error {
				var th Thread
				err := object(s, func(k string) error {
					var err error
					switch k {
					case "pid", "tid":
						var v int64
						if s.Kind() == '"' { // some traces use string ids
							var b []byte
							if b, err = s.String(); err == nil {
								v, _ = strconv.ParseInt(string(b), 0, 64)
							}
						} else {
							v, err = s.Int()
						}
						if k == "pid" {
							th.PID = v
						} else {
							th.TID = v
						}
					case "name":
						if s.Null() {
							return nil
						}
						var b []byte
						b, err = s.String()
						th.Name = string(b)
					case "profileCalls":
						return array(s, func() error {
							c, err := row(s)
							th.Calls = append(th.Calls, c)
							return err
						})
					case "flameEntries":
						return array(s, func() error {
							e, err := entryRow(s)
							th.Entries = append(th.Entries, e)
							return err
						})
					default:
						return s.Skip()
					}
					return err
				})
				d.Threads = append(d.Threads, th)
				return err
			})
		}
		return s.Skip()
	})
	return d, err
}

// row reads [ts, dur, selfTime, functionName, url, lineNumber, columnNumber, scriptId, nodeId, sampleIndex].
func row(s *jsonscan.Scanner) (Call, error) {
	var c Call
	if err := s.BeginArray(); err != nil {
		return c, err
	}
	for i := 0; ; i++ {
		ok, err := s.NextElem(i == 0)
		if err != nil || !ok {
			return c, err
		}
		switch i {
		case 0:
			c.Ts, err = s.Float()
		case 1:
			c.Dur, err = s.Float()
		case 2:
			if !s.Null() {
				c.Self, err = s.Float()
				c.HasSelf = true
			}
		case 3, 4, 7:
			var b []byte
			if s.Kind() == '0' { // scriptId may be a number
				var f float64
				f, err = s.Float()
				b = fmt.Appendf(nil, "%v", f)
			} else if !s.Null() {
				b, err = s.String()
			}
			switch i {
			case 3:
				c.Name = string(b)
			case 4:
				c.URL = string(b)
			case 7:
				c.ScriptID = string(b)
			}
		case 5, 6:
			// undefined positions (absent from the input) are null: -1 in jsprof
			v := int64(-1)
			if !s.Null() {
				v, err = s.Int()
			}
			if i == 5 {
				c.Line = v
			} else {
				c.Column = v
			}
		case 8:
			c.NodeID, err = s.Int()
		case 9:
			c.SampleIndex, err = s.Int()
		default:
			err = s.Skip()
		}
		if err != nil {
			return c, err
		}
	}
}

// entryRow reads [level, ts, dur, name, isProfileCall].
func entryRow(s *jsonscan.Scanner) (Entry, error) {
	var e Entry
	if err := s.BeginArray(); err != nil {
		return e, err
	}
	for i := 0; ; i++ {
		ok, err := s.NextElem(i == 0)
		if err != nil || !ok {
			return e, err
		}
		switch i {
		case 0:
			e.Level, err = s.Int()
		case 1:
			e.Ts, err = s.Float()
		case 2:
			e.Dur, err = s.Float()
		case 3:
			if !s.Null() {
				var b []byte
				b, err = s.String()
				e.Name = string(b)
			}
		case 4:
			var v int64
			v, err = s.Int()
			e.IsCall = v == 1
		default:
			err = s.Skip()
		}
		if err != nil {
			return e, err
		}
	}
}

func object(s *jsonscan.Scanner, member func(key string) error) error {
	if err := s.BeginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		k, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return err
		}
		if err := member(string(k)); err != nil {
			return err
		}
	}
}

func array(s *jsonscan.Scanner, elem func() error) error {
	if err := s.BeginArray(); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil || !ok {
			return err
		}
		if err := elem(); err != nil {
			return err
		}
	}
}

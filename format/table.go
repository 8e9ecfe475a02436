package format

import (
	"bytes"
	"io"
	"strings"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/profile"
)

// Info describes one profile format: how Parse recognises and reads it, and
// how jsprof convert names it, chooses it from an output file's name and
// lists it in its usage text. [Formats] holds every one.
type Info struct {
	// Name is the format's name, as jsprof convert --to takes it.
	Name string
	// Description names the format in messages: an input "want" list is
	// made of these (see [Supported]).
	Description string
	// Writes says what jsprof convert writes in this format, for its usage
	// text (see [WritersHelp]); "" unless Out.
	Writes string
	// Exts are the endings of the output file names that choose this format
	// (before a ".gz" suffix, which only compresses); the first is the
	// canonical one.
	Exts []string
	// In and Out tell whether jsprof reads and writes the format.
	In, Out bool
	// Sniff reports whether the start of a decompressed input (up to 256 KiB
	// of it, possibly cut short) is in this format. It is nil when the
	// format has no signature: Parse then tries it after every Sniff, by
	// reading the input.
	Sniff func(head []byte) bool
	// Fallback marks a Sniff that claims a broad class of inputs (any JSON
	// object): Parse asks it only after every other Sniff has said no, so
	// that the format's reader explains what is wrong with an object that is
	// no format at all, which helps more than "unrecognized".
	Fallback bool
	// Signature, for a Fallback format, reports whether a head cut short is
	// surely in this format (a .cpuprofile whose first member is one of its
	// own keys): then the input is not sniffed again once read whole.
	Signature func(head []byte) bool
	// Compresses tells that the writer gzips its output itself: a ".gz"
	// output name adds no second layer.
	Compresses bool
	// Binary marks output that is not text (not written to a terminal
	// unless asked for explicitly).
	Binary bool

	parse  func(data []byte, opts Options) (*profile.Profile, error) // nil unless In
	stream func(r io.Reader, opts Options) (*profile.Profile, error) // nil: read whole, with parse
	// parseMapped, if not nil, reads a plain file mapped into memory
	// (input.Mapping), calling release with what it has gone past, and
	// drop with a stretch it read again (its pages go back, progress does
	// not count it twice).
	parseMapped func(data []byte, opts Options, release func(lo, hi int64) error, drop func(lo, hi int64)) (*profile.Profile, error)
}

// Formats lists every format jsprof reads or writes, in the order messages
// and usage texts list them, which is also the order in which Parse asks the
// Sniffs (the Fallback ones last).
var Formats = []Info{
	{
		Name:        "cpuprofile",
		Description: "a V8 .cpuprofile (current or legacy, XS call graphs)",
		Writes: "V8 .cpuprofile (current form), one thread: the one --thread selects, or the only one. " +
			"A call graph (XS) is made acyclic first the way XS does it (back edges of a depth-first walk " +
			"from the root are dropped); the count is reported on stderr.",
		Exts:      []string{".cpuprofile"},
		In:        true,
		Out:       true,
		Sniff:     isObject,
		Fallback:  true,
		Signature: v8.Sniff,
		parse:     func(data []byte, opts Options) (*profile.Profile, error) { return v8.ParseBytes(data, opts.V8Limits) },
		parseMapped: func(data []byte, opts Options, release func(lo, hi int64) error, drop func(lo, hi int64)) (*profile.Profile, error) {
			return v8.ParseMapped(data, opts.V8Limits, release, drop)
		},
	},
	{
		Name:        "trace",
		Description: "a Chrome trace (JSON array or object with traceEvents)",
		Writes: "Chrome trace JSON: every selected thread's Profile/ProfileChunk events and its kept trace " +
			"events with their args; DevTools reads it into the same ProfileCalls.",
		Exts: []string{".trace.json"},
		In:   true,
		Out:  true,
		Sniff: func(head []byte) bool {
			trace, _ := chrometrace.Sniff(head)
			return trace
		},
		parse: func(data []byte, opts Options) (*profile.Profile, error) {
			return chrometrace.ParseBytes(data, opts.Trace)
		},
		stream: func(r io.Reader, opts Options) (*profile.Profile, error) { return chrometrace.Parse(r, opts.Trace) },
		parseMapped: func(data []byte, opts Options, release func(lo, hi int64) error, drop func(lo, hi int64)) (*profile.Profile, error) {
			return chrometrace.ParseMapped(data, opts.Trace, release, drop)
		},
	},
	{
		Name:        "speedscope",
		Description: "speedscope",
		Writes: "speedscope JSON, compact \"sampled\" form, one profile per thread, weights in ns, " +
			"after the view and transforms.",
		Exts:  []string{".speedscope.json"},
		In:    true,
		Out:   true,
		Sniff: speedscope.Sniff,
		parse: func(data []byte, _ Options) (*profile.Profile, error) { return speedscope.ParseBytes(data) },
	},
	{
		Name:        "firefox",
		Description: "a Firefox profile (Gecko or processed)",
		Writes: "Firefox Profiler processed profile (version 75), one thread per selected thread, " +
			"a sample where the stack changes, weighted by its duration (tracing-ms), jsprof's categories " +
			"and colours; the Profiler's own loader reports the same per-function times as top.",
		Exts:  []string{".firefox.json"},
		In:    true,
		Out:   true,
		Sniff: firefox.Sniff,
		parse: func(data []byte, _ Options) (*profile.Profile, error) { return firefox.ParseBytes(data) },
	},
	{
		Name:        "pprof",
		Description: "pprof",
		Writes: "pprof protobuf (gzip; sample values: count and CPU ns; lines 1-based), for go tool pprof; " +
			"after the view and transforms.",
		Exts:       []string{".pb", ".pprof", ".prof"},
		In:         true,
		Out:        true,
		Compresses: true,
		Binary:     true,
		// No Sniff: tried last, by parsing (google/pprof tells its encodings apart).
		parse: func(data []byte, _ Options) (*profile.Profile, error) { return pprof.Parse(bytes.NewReader(data)) },
	},
	{
		Name:        "folded",
		Description: "folded stacks",
		Writes: "folded stacks (\"frame;frame;frame weight\", root first) with weights in ns, after --view, " +
			"--from/--until (--to names the format here) and the transforms; with several threads each " +
			"stack starts with its thread.",
		Exts:  []string{".folded"},
		In:    true,
		Out:   true,
		Sniff: folded.Sniff,
		parse: func(data []byte, _ Options) (*profile.Profile, error) {
			return folded.ParseProfile(bytes.NewReader(data))
		},
	},
	{
		Name:        "svg",
		Description: "an SVG flame graph",
		Writes: "a self-contained SVG flame graph (icicle) of one thread, coloured by category, with hover " +
			"titles and click-to-zoom.",
		Exts: []string{".svg"},
		Out:  true,
	},
}

// isObject reports whether the input starts with a JSON object.
func isObject(head []byte) bool {
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// Supported lists the input formats Parse reads, for error messages ("want
// " + Supported).
var Supported = JoinOr(descriptions())

func descriptions() []string {
	var d []string
	for _, f := range Formats {
		if f.In {
			d = append(d, f.Description)
		}
	}
	return d
}

// Lookup returns the format named name (exactly: "cpuprofile", not
// "CPUProfile").
func Lookup(name string) (Info, bool) {
	for _, f := range Formats {
		if f.Name == name {
			return f, true
		}
	}
	return Info{}, false
}

// ForOutput returns the written format an output file name chooses: the one
// with the longest of the Exts that ends path, once a ".gz" suffix is cut
// off ("out.trace.json.gz": trace). Case matters.
func ForOutput(path string) (Info, bool) {
	base := strings.TrimSuffix(path, ".gz")
	var best Info
	n := 0
	for _, f := range Formats {
		if !f.Out {
			continue
		}
		for _, ext := range f.Exts {
			if len(ext) > n && strings.HasSuffix(base, ext) {
				best, n = f, len(ext)
			}
		}
	}
	return best, n > 0
}

// WritableNames returns the names of the formats jsprof writes, in table
// order.
func WritableNames() []string {
	var names []string
	for _, f := range Formats {
		if f.Out {
			names = append(names, f.Name)
		}
	}
	return names
}

// JoinOr joins items as a list of choices: "a, b or c". With
// WritableNames it makes the "want …" of an unknown output format's error.
func JoinOr(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// WritersHelp lists the written formats for a usage text, one entry per
// format in table order: two spaces, the name and the output names that
// choose it, then what is written, indented and wrapped to 79 columns.
func WritersHelp() string {
	const indent = "               "
	var b strings.Builder
	for _, f := range Formats {
		if !f.Out {
			continue
		}
		exts := make([]string, len(f.Exts))
		for i, e := range f.Exts {
			exts[i] = "*" + e
		}
		line := "  " + f.Name + strings.Repeat(" ", max(1, len(indent)-2-len(f.Name))) + strings.Join(exts, ", ")
		b.WriteString(line)
		line = indent
		for _, w := range strings.Fields(f.Writes) {
			if len(line) > len(indent) && len(line)+1+len(w) > 79 {
				b.WriteString("\n" + line)
				line = indent
			}
			if len(line) > len(indent) {
				line += " "
			}
			line += w
		}
		b.WriteString("\n" + line + "\n")
	}
	return b.String()
}

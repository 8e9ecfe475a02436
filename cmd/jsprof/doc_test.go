package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/cli"
)

// The usage text exists twice: in doc.go (go doc) and in cli.Usage (jsprof
// -h), and once more per command in "jsprof COMMAND -h". These tests keep
// them in step and run every documented command form.

const mixProfile = "../../testdata/node/mix.cpuprofile"

// docSynopses returns the "jsprof …" command forms of the Usage section of
// doc.go, without "jsprof ".
func docSynopses(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\tjsprof (.+)$`).FindAllStringSubmatch(string(src), -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	if len(out) == 0 {
		t.Fatal("doc.go documents no \"\\tjsprof …\" command forms")
	}
	return out
}

// usageSynopses returns the command forms of cli.Usage: the lines
// "  jsprof COMMAND …", without "jsprof " and the description that follows
// two or more spaces.
func usageSynopses(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  jsprof (.+)$`).FindAllStringSubmatch(cli.Usage, -1) {
		syn, _, _ := strings.Cut(m[1], "  ")
		out = append(out, strings.TrimSpace(syn))
	}
	if len(out) == 0 {
		t.Fatal("cli.Usage documents no \"  jsprof …\" command forms")
	}
	return out
}

func command(synopsis string) string { return strings.Fields(synopsis)[0] }

func commands(synopses []string) []string {
	var out []string
	for _, s := range synopses {
		out = append(out, command(s))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestDocMatchesUsage(t *testing.T) {
	t.Parallel()
	doc, usage := docSynopses(t), usageSynopses(t)
	if got, want := commands(doc), commands(usage); !slices.Equal(got, want) {
		t.Errorf("subcommands: doc.go lists %q, cli.Usage lists %q", got, want)
	}
	for _, s := range doc {
		if !slices.Contains(usage, s) {
			t.Errorf("doc.go documents %q, which cli.Usage does not (it has %q)", "jsprof "+s, usage)
		}
	}
	for _, s := range usage {
		if !slices.Contains(doc, s) {
			t.Errorf("cli.Usage documents %q, which doc.go does not (it has %q)", "jsprof "+s, doc)
		}
	}
	// "jsprof COMMAND -h" starts with the same form.
	for _, s := range doc {
		var stdout, stderr bytes.Buffer
		code := cli.Run(t.Context(), []string{command(s), "-h"}, nil, &stdout, &stderr)
		first, _, _ := strings.Cut(stdout.String(), "\n")
		if code != 0 || first != "Usage: jsprof "+s {
			t.Errorf("jsprof %s -h: got exit %d and first line %q, want 0 and %q (stderr: %s)", command(s), code, first, "Usage: jsprof "+s, stderr.String())
		}
	}
}

// expand turns a command form such as
//
//	top [-n N] [--by self|total] [--lines] [--json] FILE
//
// into argument lists to run: the required words alone, each optional group
// alone (once per alternative of an "a|b" word), and all optional groups
// together, without repeats. Upper-case words are placeholders: FILE is file, N and PCT are
// small numbers.
func expand(t *testing.T, synopsis, file string) [][]string {
	t.Helper()
	type group struct {
		words    []string
		optional bool
	}
	var groups []group
	for _, m := range regexp.MustCompile(`\[([^\]]*)\]|(\S+)`).FindAllStringSubmatch(synopsis, -1) {
		if m[1] != "" {
			groups = append(groups, group{strings.Fields(m[1]), true})
		} else {
			groups = append(groups, group{[]string{m[2]}, false})
		}
	}
	value := func(w string, alt int) string {
		switch {
		case w == "FILE":
			return file
		case w == "N":
			return "3"
		case w == "SEL":
			return "main"
		case w == "SEM":
			return "vscode"
		case w == "FORMAT":
			return "cpuprofile"
		case w == "OUT":
			return "-"
		case w == "PCT":
			return "5"
		case strings.Contains(w, "|"):
			alts := strings.Split(w, "|")
			return alts[alt%len(alts)]
		case strings.ToUpper(w) == w && strings.ToLower(w) != w:
			t.Fatalf("%q: unknown placeholder %q; teach expand a value for it", synopsis, w)
		}
		return w
	}
	alternatives := func(g group) int {
		n := 1
		for _, w := range g.words {
			n = max(n, strings.Count(w, "|")+1)
		}
		return n
	}
	// build returns the arguments with the optional groups that want
	// selects, using alternative alt of each.
	build := func(want func(i int) bool, alt int) []string {
		var args []string
		for i, g := range groups {
			if g.optional && !want(i) {
				continue
			}
			for _, w := range g.words {
				args = append(args, value(w, alt))
			}
		}
		return args
	}
	runs := [][]string{build(func(int) bool { return false }, 0)}
	for i, g := range groups {
		if !g.optional {
			continue
		}
		for alt := range alternatives(g) {
			runs = append(runs, build(func(j int) bool { return j == i }, alt))
		}
	}
	runs = append(runs, build(func(int) bool { return true }, 0))
	var out [][]string
	for _, r := range runs {
		if !slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, r) }) {
			out = append(out, r)
		}
	}
	return out
}

func TestExpand(t *testing.T) {
	t.Parallel()
	got := expand(t, "top [-n N] [--by self|total] [--json] FILE", "f")
	want := [][]string{
		{"top", "f"},
		{"top", "-n", "3", "f"},
		{"top", "--by", "self", "f"},
		{"top", "--by", "total", "f"},
		{"top", "--json", "f"},
		{"top", "-n", "3", "--by", "self", "--json", "f"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("expand: got %q, want %q", got, want)
	}
	got = expand(t, "calls --json FILE", "f")
	if want := [][]string{{"calls", "--json", "f"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("expand: got %q, want %q", got, want)
	}
}

// TestDocExamples runs every documented command form, in every variant
// expand derives from it, on a real profile.
func TestDocExamples(t *testing.T) {
	t.Parallel()
	for _, s := range docSynopses(t) {
		if command(s) == "record" || command(s) == "push" || command(s) == "view" {
			continue // needs a live Node or Chromium, or a server, or serves until interrupted: their own tests run them
		}
		for _, args := range expand(t, s, mixProfile) {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				var stdout, stderr bytes.Buffer
				code := cli.Run(t.Context(), args, nil, &stdout, &stderr)
				if code != 0 || stderr.Len() > 0 || stdout.Len() == 0 {
					t.Errorf("jsprof %s: got exit %d, %d bytes of output and stderr %q; want exit 0, output and no stderr",
						strings.Join(args, " "), code, stdout.Len(), stderr.String())
				}
			})
		}
	}
	// doc.go points to "jsprof -h", which prints cli.Usage.
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"jsprof ([^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		args := strings.Fields(m[1])
		var stdout, stderr bytes.Buffer
		code := cli.Run(t.Context(), args, nil, &stdout, &stderr)
		if code != 0 || stdout.String() != cli.Usage {
			t.Errorf("jsprof %s: got exit %d and\n%s\nwant 0 and cli.Usage (stderr: %s)", m[1], code, stdout.String(), stderr.String())
		}
	}
}

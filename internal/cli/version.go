package cli

import (
	"errors"
	"flag"
	"fmt"
	"runtime/debug"
)

const versionUsage = `Usage: jsprof version

Prints the module version of this binary and, when it was built from a
version-control checkout, the revision, its time and whether the tree had
uncommitted changes ("jsprof --version" is the same).
`

func runVersion(e *env, args []string) error {
	fs := newFlags("version")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, versionUsage)
		return err
	} else if err != nil {
		return &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments")
	}
	fmt.Fprintln(e.stdout, versionString())
	return nil
}

// versionString describes the build: "jsprof VERSION (REV, TIME[, modified]) GO".
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "jsprof (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	out := "jsprof " + v
	if rev != "" {
		out += fmt.Sprintf(" (%.12s, %s%s)", rev, at, modified)
	}
	return out + " " + bi.GoVersion
}

package server

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jsprof/jsprof/report"
)

// maxSource is the largest source file served.
const maxSource = 16 << 20

// source answers /api/source?url=U: the text of the script at U read under
// one of the source roots. A profile's URLs are attacker-controlled, so:
// nothing is read without a root; a path with a ".." element or a NUL is
// refused; an absolute path (file:///x, /x) must lie under a root; any
// other URL names a path relative to a root (http://host/a/b.js: a/b.js,
// then host/a/b.js), as does an absolute path elsewhere (its suffixes:
// /x/a/b.js: x/a/b.js, a/b.js, b.js); and the file, once every symlink is
// resolved, must still lie under the root.
func (s *server) source(q *request) (any, error) {
	raw := q.get("url")
	if len(s.opts.SourceRoots) == 0 {
		return nil, &badRequest{code: http.StatusNotFound, msg: "no --source-root was given: source files are not read"}
	}
	abs, rels, err := sourceCandidates(raw)
	if err != nil {
		return nil, &badRequest{code: http.StatusForbidden, msg: err.Error()}
	}
	for _, root := range s.opts.SourceRoots {
		rootAbs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		rootReal, err := filepath.EvalSymlinks(rootAbs)
		if err != nil {
			continue
		}
		var cands []string
		if abs != "" {
			if within(abs, rootAbs) || within(abs, rootReal) {
				cands = append(cands, abs)
			} else {
				// A path recorded on another machine: its suffixes under
				// the root (a/b/c.js, b/c.js, c.js), as pprof's
				// -trim_path does.
				els := strings.Split(filepath.ToSlash(abs), "/")
				for i := 1; i < len(els); i++ {
					if rel := filepath.Join(els[i:]...); rel != "." && rel != "" {
						cands = append(cands, filepath.Join(rootReal, rel))
					}
				}
			}
		}
		for _, r := range rels {
			cands = append(cands, filepath.Join(rootReal, r))
		}
		for _, c := range cands {
			real, err := filepath.EvalSymlinks(c)
			if err != nil || !within(real, rootReal) {
				continue
			}
			text, err := readSmall(real)
			if err != nil {
				continue
			}
			return report.ViewerSource{URL: raw, Path: real, Text: text}, nil
		}
	}
	return nil, &badRequest{code: http.StatusNotFound, msg: "not found under the source roots"}
}

// errRefused is the error of a path that is never read.
type errRefused string

func (e errRefused) Error() string { return string(e) }

// sourceCandidates returns the absolute path a URL names (file:// or a
// rooted path; "" if none) or the relative paths to try under each root.
func sourceCandidates(raw string) (abs string, rels []string, err error) {
	if raw == "" {
		return "", nil, errRefused("url: missing")
	}
	if strings.ContainsRune(raw, 0) {
		return "", nil, errRefused("url: NUL refused")
	}
	var p, host string
	if u, e := url.Parse(raw); e == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		p, host = u.Path, u.Host
		if u.Scheme == "file" {
			if host != "" && host != "localhost" {
				return "", nil, errRefused("url: a file URL on another host is refused")
			}
			if bad(p) {
				return "", nil, errRefused("url: .. refused")
			}
			return filepath.Clean(filepath.FromSlash(p)), nil, nil
		}
	} else {
		p = raw
	}
	if bad(p) || bad(host) {
		return "", nil, errRefused("url: .. refused")
	}
	if filepath.IsAbs(p) && host == "" && !strings.Contains(raw, "://") {
		return filepath.Clean(p), nil, nil
	}
	rel := strings.TrimLeft(filepath.FromSlash(p), "/\\")
	rel = strings.TrimPrefix(rel, "."+string(filepath.Separator))
	if rel == "" || rel == "." {
		return "", nil, errRefused("url: no path")
	}
	rels = append(rels, rel)
	if host != "" {
		rels = append(rels, filepath.Join(host, rel))
	}
	return "", rels, nil
}

// bad reports whether p has a ".." element (either separator) or a
// backslash trick.
func bad(p string) bool {
	for _, el := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return true
		}
	}
	return false
}

// within reports whether path lies under root (or is root).
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", errRefused("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSource+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSource {
		return "", errRefused("too big")
	}
	return string(b), nil
}

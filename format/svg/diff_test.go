package svg

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

func diffSide(t *testing.T, name string) DiffSide {
	t.Helper()
	s, err := session.Load(context.Background(), name, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := s.Threads()[0].Stacks(context.Background(), view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Profile
	return DiffSide{Profile: p, Stacks: ts, Key: func(f profile.FrameID) string {
		k := p.FunctionKey(f)
		fr := &p.Frames[f]
		return fmt.Sprintf("%q %q %d %d %t", p.Str(k.Name), p.Str(fr.URL), k.Line, k.Column, k.Event)
	}}
}

// frameFills parses a differential graph (it must be well-formed XML) and
// returns each frame's title and fill.
func frameFills(t *testing.T, data []byte) map[string]string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	out := map[string]string{}
	var title string
	inTitle := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			inTitle = el.Name.Local == "title"
			if el.Name.Local == "rect" && title != "" {
				for _, a := range el.Attr {
					if a.Name.Local == "fill" {
						out[title] = a.Value
					}
				}
				title = ""
			}
		case xml.CharData:
			if inTitle {
				title = string(el)
			}
		case xml.EndElement:
			inTitle = false
		}
	}
	return out
}

// A profile against itself: every frame grey, no path left out. Against
// another: frames with more self time are red, with less blue; reversed,
// the base's paths are drawn and the removed ones say so.
func TestWriteDiff(t *testing.T) {
	t.Parallel()
	mix, rec := "../../testdata/node/mix.cpuprofile", "../../testdata/node/recursion.cpuprofile"
	var buf bytes.Buffer
	if err := WriteDiff(&buf, diffSide(t, mix), diffSide(t, mix), DiffOptions{}); err != nil {
		t.Fatal(err)
	}
	same := frameFills(t, buf.Bytes())
	for title, fill := range same {
		if !strings.HasPrefix(title, "all ") && fill != sameFill {
			t.Errorf("%s: fill %s, want grey %s", title, fill, sameFill)
		}
	}
	if strings.Contains(buf.String(), "not drawn") || len(same) < 50 {
		t.Errorf("%d frames; %q", len(same), buf.String()[:400])
	}
	buf.Reset()
	if err := WriteDiff(&buf, diffSide(t, mix), diffSide(t, rec), DiffOptions{Options: Options{Title: "<mix> & rec"}}); err != nil {
		t.Fatal(err)
	}
	fills := frameFills(t, buf.Bytes())
	red, blue := 0, 0
	for title, fill := range fills {
		switch {
		case strings.Contains(title, "(added)") && fill != DiffColor(1, 1) && !strings.Contains(title, "self: new 0.000"):
			// An added frame with self time is red, as strong as its share.
		case fill == DiffColor(1, 1):
			red++
		}
		if strings.HasPrefix(fill, "#") && fill != sameFill && fill[1:3] < fill[5:7] {
			blue++
		}
	}
	if red == 0 || !strings.Contains(buf.String(), "&lt;mix&gt; &amp; rec") {
		t.Errorf("mix → recursion: %d frames at full red; title escaped: %v", red, strings.Contains(buf.String(), "&lt;mix&gt;"))
	}
	buf.Reset()
	if err := WriteDiff(&buf, diffSide(t, mix), diffSide(t, rec), DiffOptions{Reverse: true}); err != nil {
		t.Fatal(err)
	}
	rev := frameFills(t, buf.Bytes())
	removed := 0
	for title, fill := range rev {
		if strings.Contains(title, "(removed)") {
			removed++
			if strings.Contains(title, "self: new 0.000 ms, base 0.000") {
				continue
			}
			if fill[1:3] >= fill[5:7] {
				t.Errorf("%s: fill %s, want blue (less time)", title, fill)
			}
		}
	}
	if removed == 0 || !strings.Contains(buf.String(), "widths: base profile") {
		t.Errorf("reversed: %d removed frames drawn", removed)
	}
	t.Logf("same: %d grey frames; mix → recursion: %d frames (%d full red, %d blue); reversed: %d frames, %d removed", len(same), len(fills), red, blue, len(rev), removed)
}

func TestDiffColor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		delta, max   float64
		want         string
		redder, blue bool
	}{
		{"none", 0, 10, sameFill, false, false},
		{"no scale", 5, 0, sameFill, false, false},
		{"most", 10, 10, "#b2182b", true, false},
		{"least", -10, 10, "#2166ac", false, true},
	} {
		if got := DiffColor(tc.delta, tc.max); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
	// Stronger changes are darker.
	if a, b := DiffColor(1, 10), DiffColor(5, 10); a <= b {
		t.Errorf("DiffColor(1) %s is not paler than DiffColor(5) %s", a, b)
	}
}

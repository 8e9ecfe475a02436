package chrometrace_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/proftest"
)

// in → out → in gives the same model for traces: threads, nodes, frames,
// samples and their times, trace ids and events. Only the diagnostics
// differ (the written trace has nothing left to repair or drop).
func TestWriteRoundTrip(t *testing.T) {
	for _, name := range []string{"recursive-blocking-js", "two-workers", "react-console-timestamp"} {
		t.Run(name, func(t *testing.T) {
			opts := format.Options{Trace: chrometrace.Options{KeepArgs: true}}
			p, err := format.ReadFile(proftest.Corpus(t, "devtools/"+name+".json.gz"), nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := chrometrace.Write(&buf, p, chrometrace.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			q, err := chrometrace.Parse(&buf, chrometrace.Options{KeepArgs: true})
			if err != nil {
				t.Fatal(err)
			}
			strip := regexp.MustCompile(`(?m)^diag .*\n`)
			if got, want := strip.ReplaceAllString(q.String(), ""), strip.ReplaceAllString(p.String(), ""); got != want {
				t.Errorf("round trip differs (%d vs %d bytes of dump)", len(got), len(want))
			}
			for i := range p.EventArgs {
				if !bytes.Equal(p.EventArgs[i], q.EventArgs[i]) {
					t.Fatalf("event %d: args differ", i)
				}
			}
		})
	}
}

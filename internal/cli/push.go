package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jsprof/jsprof/push"
	"github.com/jsprof/jsprof/push/pyroscope"
	"github.com/jsprof/jsprof/session"
)

const pushUsage = `Usage: jsprof push --url URL --name SERVICE [--label K=V] [--ingest] [--thread SEL] FILE [FILE]

Sends each FILE to a Grafana Pyroscope server as a pprof profile of its
selected threads (their time as top and tree compute it, under --view,
--from/--until and the transforms), labelled service_name=SERVICE,
__name__=process_cpu and each --label, through Pyroscope's Connect API
(POST URL/push.v1.PusherService/Push); --ingest uses the older
URL/ingest?format=pprof endpoint instead.

Each profile carries its wall-clock start and duration: the profile's own
start when its clock is Unix time, else (V8's clocks are monotonic) the
file's modification time less the duration, else --start.

Pyroscope's limits are kept and what they cut is reported: stacks deeper
than --max-depth (default 1000) keep their innermost frames under a
"(truncated)" frame; past --max-samples (default 16000) distinct stacks,
the lightest become one "(other)" sample per thread. Totals do not change.
A profile still over --max-bytes (default 4 MiB) is an error that says so.

Credentials: --basic-auth USER:PASSWORD or --bearer TOKEN, or (better, as
they do not show in the process list) the environment variables
JSPROF_PUSH_BASIC_AUTH and JSPROF_PUSH_BEARER; --tenant sets X-Scope-OrgID.
They are never printed. 429 and 5xx responses and network errors are
retried with exponential backoff (--retries); other 4xx responses stop
with the server's message.
`

func runPush(e *env, args []string) error {
	fs := newFlags("push")
	common := addCommonFlags(fs)
	transform := addTransformFlags(fs)
	url := fs.String("url", "", "Pyroscope server `URL`, e.g. http://localhost:4040")
	service := fs.String("name", "", "service name (`SERVICE`): the service_name label")
	var labels listFlag
	fs.Var(&labels, "label", "series label `K=V`; repeatable")
	ingest := fs.Bool("ingest", false, "use the older /ingest HTTP endpoint instead of the Connect API")
	basic := fs.String("basic-auth", "", "`USER:PASSWORD` for HTTP basic auth (default $JSPROF_PUSH_BASIC_AUTH)")
	bearer := fs.String("bearer", "", "bearer `TOKEN` (default $JSPROF_PUSH_BEARER)")
	tenant := fs.String("tenant", "", "tenant `ID` (X-Scope-OrgID)")
	retries := fs.Int("retries", 4, "retries on 429, 5xx and network errors")
	maxSamples := fs.Int("max-samples", push.DefaultLimits.MaxSamples, "most distinct stacks per profile (0: no limit)")
	maxDepth := fs.Int("max-depth", push.DefaultLimits.MaxDepth, "deepest stack, in frames (0: no limit)")
	maxBytes := fs.Int("max-bytes", push.DefaultLimits.MaxBytes, "largest profile in bytes of gzipped pprof (0: no limit); a larger one is an error")
	start := fs.String("start", "", "wall-clock start of the profiles, RFC 3339 (default: from the profile or the file)")
	names, err := parsePositional(e, fs, pushUsage, args, 0, "one or more FILEs")
	if err != nil {
		return err
	}
	if *url == "" || *service == "" {
		return usagef("--url and --name are required")
	}
	var lbls []pyroscope.Label
	for _, kv := range labels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, "{},= ") {
			return usagef("--label %q: want NAME=VALUE", kv)
		}
		lbls = append(lbls, pyroscope.Label{Name: k, Value: v})
	}
	if *basic == "" {
		*basic = os.Getenv("JSPROF_PUSH_BASIC_AUTH")
	}
	if *bearer == "" {
		*bearer = os.Getenv("JSPROF_PUSH_BEARER")
	}
	if *retries < 0 {
		*retries = -1
	} else if *retries == 0 {
		*retries = -1 // no retry (0 means the default to the client)
	}
	po := push.Options{Threads: *common.thread, Limits: push.Limits{MaxSamples: *maxSamples, MaxDepth: *maxDepth, MaxBytes: *maxBytes}}
	if po.View, err = transform.options(); err != nil {
		return err
	}
	if *start != "" {
		if po.Start, err = time.Parse(time.RFC3339Nano, *start); err != nil {
			return usagef("--start %q: want an RFC 3339 time such as 2026-11-24T10:00:00Z", *start)
		}
	}
	client, err := pyroscope.New(pyroscope.Options{URL: *url, BasicAuth: *basic, Bearer: *bearer, Tenant: *tenant, Ingest: *ingest, Retries: *retries,
		OnRetry: func(attempt int, err error, wait time.Duration) {
			fmt.Fprintf(e.stderr, "jsprof: push attempt %d failed (%v); retrying in %v\n", attempt, err, wait)
		}})
	if err != nil {
		return usagef("%v", err)
	}
	so := session.Options{Stdin: e.stdin}
	so.Integrate.ShowAllEvents = *common.showAllEvents
	so.Integrate.TraceIDFakeMode = *common.traceIDFake
	if *common.maxInput != "" {
		n, err := parseSize(*common.maxInput)
		if err != nil {
			return usagef("--max-input: %v", err)
		}
		so.Read.Input.MaxBytes = n
	}
	for _, name := range names {
		s, err := session.Load(e.ctx, name, so)
		if err != nil {
			return err
		}
		p, err := push.Prepare(e.ctx, s, po)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if p.Samples == 0 {
			fmt.Fprintf(e.stdout, "skipped %s: no time to push (no samples under this selection)\n", name)
			continue
		}
		err = client.Push(e.ctx, pyroscope.Series{Labels: lbls, PProf: p.PProf, Start: p.Start, Duration: p.Duration}, *service)
		if err != nil {
			return fmt.Errorf("pushing %s: %w", name, err)
		}
		fmt.Fprintf(e.stdout, "pushed %s: %.3f ms in %d stacks, %d bytes of pprof; start %s (%s), duration %v\n", name, float64(p.Total)/1e6,
			p.Samples, len(p.PProf), p.Start.UTC().Format(time.RFC3339), p.StartFrom, p.Duration.Round(time.Microsecond))
		if p.Trimmed != "" {
			fmt.Fprintf(e.stdout, "  trimmed to Pyroscope's limits: %s\n", p.Trimmed)
		}
	}
	return nil
}

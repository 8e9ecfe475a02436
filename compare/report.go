package compare

import (
	"strconv"

	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
)

// ReportTimes returns a row's times as the JSON contract gives them
// (report.DiffTimes): both sides' self and total in ms and in % of each
// side's total (the base's scaled by res.Scale), and the changes, with the
// percentages rounded to 0.001 as printed.
func ReportTimes(st Status, b, nw Times, res *Result) report.DiffTimes {
	bt := profile.Time(float64(res.Base.Total) * res.Scale)
	nt := res.New.Total
	d := report.DiffTimes{Status: st.String(),
		BaseSelfMs: report.Millis(b.Self), NewSelfMs: report.Millis(nw.Self), DeltaSelfMs: report.Millis(nw.Self - b.Self),
		BaseTotalMs: report.Millis(b.Total), NewTotalMs: report.Millis(nw.Total), DeltaTotalMs: report.Millis(nw.Total - b.Total),
		BaseSelfPct: round3(Pct(b.Self, bt)), NewSelfPct: round3(Pct(nw.Self, nt)),
		BaseTotalPct: round3(Pct(b.Total, bt)), NewTotalPct: round3(Pct(nw.Total, nt)),
	}
	d.DeltaSelfPct = round3(d.NewSelfPct - d.BaseSelfPct)
	d.DeltaTotalPct = round3(d.NewTotalPct - d.BaseTotalPct)
	return d
}

func round3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 3, 64), 64)
	return r
}

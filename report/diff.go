package report

// Diff is `jsprof diff --json`: two profiles compared per function and,
// with --tree, per call path. Rows come largest absolute change of self
// time first. With --normalize the base's times are scaled by Scale (its
// total made equal to the new total) before the deltas are taken; the
// percentages are of each side's own total.
type Diff struct {
	Base DiffSide `json:"base"`
	New  DiffSide `json:"new"`
	// TotalSemantics is the total-time semantics of the function rows.
	TotalSemantics string `json:"totalSemantics"`
	Normalized     bool   `json:"normalized"`
	// Scale is the factor applied to the base's times (1 unless
	// normalized).
	Scale     float64   `json:"scale"`
	Functions []DiffRow `json:"functions"`
	// Paths holds the call paths with --tree (else empty).
	Paths []DiffPath `json:"paths"`
}

// DiffSide describes one side of a Diff.
type DiffSide struct {
	File    string   `json:"file"`
	Threads []Thread `json:"threads"`
	// TotalMs is the time the side's trees add up to (unscaled).
	TotalMs Millis `json:"totalMs"`
	// StripPrefix is the URL prefix removed before matching ("" none).
	StripPrefix string `json:"stripPrefix"`
}

// DiffTimes are the times of a function or path on both sides, the
// change, and the shares of each side's total (in %).
type DiffTimes struct {
	// Status is same, changed, added (new only) or removed (base only).
	Status       string  `json:"status"`
	BaseSelfMs   Millis  `json:"baseSelfMs"`
	NewSelfMs    Millis  `json:"newSelfMs"`
	DeltaSelfMs  Millis  `json:"deltaSelfMs"`
	BaseTotalMs  Millis  `json:"baseTotalMs"`
	NewTotalMs   Millis  `json:"newTotalMs"`
	DeltaTotalMs Millis  `json:"deltaTotalMs"`
	BaseSelfPct  float64 `json:"baseSelfPct"`
	NewSelfPct   float64 `json:"newSelfPct"`
	// DeltaSelfPct is NewSelfPct − BaseSelfPct (percentage points).
	DeltaSelfPct  float64 `json:"deltaSelfPct"`
	BaseTotalPct  float64 `json:"baseTotalPct"`
	NewTotalPct   float64 `json:"newTotalPct"`
	DeltaTotalPct float64 `json:"deltaTotalPct"`
}

// DiffRow is one function of a Diff: url is the new side's (the base's
// for a removed function), before any prefix is removed.
type DiffRow struct {
	Function
	DiffTimes
}

// DiffPath is one call path of a Diff, its functions root first.
type DiffPath struct {
	Path []Function `json:"path"`
	DiffTimes
}

//go:build !unix

package fuzzcheck

import "time"

// cpuTime is not measured here: Speed goes by the wall clock alone.
func cpuTime() (time.Duration, bool) { return 0, false }

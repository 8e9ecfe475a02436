//go:build race

package fuzzcheck

const raceEnabled = true

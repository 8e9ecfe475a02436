package fuzzcheck

// CPUTime is cpuTime, for the tests.
var CPUTime = cpuTime

package server

// SetFlameWalk makes .cpuprofile flame charts of more than calls calls
// walked, with a state kept every every samples, until restore is called.
// Tests that call it must not run in parallel.
func SetFlameWalk(calls, every int) (restore func()) {
	c, e := flameHugeCalls, flameCheckpointEvery
	flameHugeCalls, flameCheckpointEvery = calls, every
	return func() { flameHugeCalls, flameCheckpointEvery = c, e }
}

package category

// SetSplitSamples sets splitSamples and returns a function restoring it.
func SetSplitSamples(n int) (restore func()) {
	old := splitSamples
	splitSamples = n
	return func() { splitSamples = old }
}

package startup

import (
	"testing"

	"github.com/jsprof/jsprof/internal/pages"
)

// The package's initialiser has given the executable's pages back before
// any test runs: where the system lets them be registered, a release made
// now finds them registered already.
func TestReleasedAtInit(t *testing.T) {
	before := pages.ExecutableFaultAroundOff()
	pages.ReleaseExecutable()
	if after := pages.ExecutableFaultAroundOff(); after && !before {
		t.Error("the executable's pages were not given back and registered at init")
	}
	t.Logf("registered: %v", before)
}

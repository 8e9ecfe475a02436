package pprof

import (
	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/profile"
)

// ParseSteps is Parse of data, with the map lookups it made to build the
// call trees and the line tables: a count of its work that does not depend
// on the machine.
func ParseSteps(data []byte) (p *profile.Profile, steps int, err error) {
	in, err := pprofile.ParseData(data)
	if err != nil {
		return nil, 0, err
	}
	var ps parser
	p, err = ps.build(in)
	return p, ps.steps, err
}

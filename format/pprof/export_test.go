package pprof

import (
	"io"

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

// WriteWithLibrary is Write with the profile written by pprof's own
// Profile.Write, its Samples made as pprof objects: what Write wrote before
// it encoded the profile itself, and must still write byte for byte.
func WriteWithLibrary(w io.Writer, p *profile.Profile, stacks []profile.ThreadStacks, opts Options) error {
	wr, err := convert(p, stacks, opts)
	if err != nil {
		return err
	}
	out := wr.out
	byID := map[uint64]*pprofile.Location{}
	for _, loc := range out.Location {
		byID[loc.ID] = loc
	}
	labels := make([]map[string][]string, len(wr.threads))
	for i, th := range wr.threads {
		labels[i] = map[string][]string{"thread": {th.name}}
	}
	var ids []uint64
	for j := range wr.samples.Len() {
		smp := wr.samples.At(j)
		ids = wr.sampleIDs(ids[:0], &smp)
		locs := make([]*pprofile.Location, len(ids))
		for i, id := range ids {
			locs[i] = byID[id]
		}
		out.Sample = append(out.Sample, &pprofile.Sample{
			Location: locs,
			Value:    []int64{smp.value[0], smp.value[1]},
			Label:    labels[smp.ti],
			NumLabel: wr.threads[smp.ti].num,
		})
	}
	if err := out.CheckValid(); err != nil {
		return err
	}
	return out.Write(w)
}

//go:build !linux

package input

import (
	"errors"
	"io"
	"os"
)

func mapFile(*os.File, int64) (*Mapping, error) {
	return nil, errors.New("input: mapping files is only done on Linux")
}

func readAnon(io.Reader, int64) (*Mapping, error) { return nil, ErrNotMapped }

//go:build !linux

package pages

import "os"

var pageSize = os.Getpagesize()

func discard([]byte) {}

func populate([]byte) {}

func releaseExecutable() {}

func executableFaultAroundOff() bool { return false }

func huge([]byte) {}

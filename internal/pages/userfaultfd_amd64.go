//go:build linux

package pages

const sysUserfaultfd = 323

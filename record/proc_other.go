//go:build !unix

package record

import (
	"errors"
	"os"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd) {}
func interruptGroup(p *os.Process)  { _ = p.Kill() }
func killGroup(p *os.Process)       { _ = p.Kill() }
func checkProcess(pid int) error    { return nil }
func openInspector(pid int) error {
	return errors.New("--pid needs SIGUSR1, which this system lacks: start Node with --inspect and use --inspect HOST:PORT")
}

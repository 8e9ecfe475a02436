//go:build unix

package record

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup runs cmd in a process group of its own, so that the
// terminal's Ctrl-C reaches only the recorder.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// interruptGroup sends SIGINT to p's process group, as a Ctrl-C would.
func interruptGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGINT) }

// killGroup kills p's process group.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// openInspector asks a running Node process to open its inspector
// (SIGUSR1, as node inspect -p does).
func openInspector(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return signalError(pid, err)
	}
	return nil
}

// checkProcess reports whether pid exists and may be signalled.
func checkProcess(pid int) error {
	if err := syscall.Kill(pid, 0); err != nil {
		return signalError(pid, err)
	}
	return nil
}

func signalError(pid int, err error) error {
	switch {
	case errors.Is(err, syscall.ESRCH):
		return fmt.Errorf("no process with pid %d", pid)
	case errors.Is(err, syscall.EPERM):
		return fmt.Errorf("process %d belongs to another user: run jsprof as that user", pid)
	}
	return fmt.Errorf("signalling process %d: %w", pid, err)
}

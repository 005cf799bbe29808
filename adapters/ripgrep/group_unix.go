//go:build unix

package ripgrep

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd as the leader of a process group of its own, and
// makes cancelling it (the deadline, found's error) kill the whole group:
// a --rg program that is a script, or that forks, must not leave children
// running after the call. Killing the leader alone left them behind.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup sends SIGKILL to cmd's process group. It is called again after
// Wait, so that children outliving a normal exit of the leader end too;
// once the group is empty, kill reports ESRCH and nothing happens.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

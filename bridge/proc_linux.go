package bridge

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal kills the host if the thread that started it
// exits: a belt to the fd 3 end-of-file braces, for a parent that dies
// without closing its pipes.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

package promtest

import (
	"os/exec"
	"syscall"
)

// procAttr has the kernel kill Prometheus if the test binary dies first, so a crashed
// or killed test leaves no server behind.
func procAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

package chromium

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procAttr starts the browser as the leader of a process group of its own,
// so that Close finds it and every helper it forks (zygotes, renderers, GPU
// and network processes) by that group. Pdeathsig has the kernel kill the
// browser if the test binary dies first; chromedp starts the browser from a
// locked OS thread, which is what makes Pdeathsig reliable.
func procAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killLeftovers kills what leftovers finds until a few passes in a row find
// nothing: a helper can be forking just as the kill arrives.
func killLeftovers(pgid int, dir string) {
	for quiet, tries := 0, 0; quiet < 3 && tries < 500; tries++ {
		pids := leftovers(pgid, dir)
		if len(pids) == 0 {
			quiet++
		}
		for _, pid := range pids {
			quiet = 0
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// leftovers returns the live processes of one browser: those of its process
// group pgid, and those that name dir (its temporary home and profile) on
// their command line, which is how the crash handlers are found: they
// detach into a session of their own. Zombies do not count; they have
// exited and wait for init to reap them.
func leftovers(pgid int, dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ...", and comm may hold spaces.
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if (pgid > 0 && f[2] == strconv.Itoa(pgid)) || bytes.Contains(cmdline, []byte(dir+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

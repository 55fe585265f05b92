package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a process the harness started pinned to one core.
type child struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// pinned starts name with args on core (taskset -c), with env added to the harness's.
func pinned(core int, env []string, name string, args ...string) (*child, error) {
	c := pinnedCmd(core, env, name, args...)
	c.cmd.Stdout = &c.stdout
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("taskset -c %d %s: %w", core, name, err)
	}
	return c, nil
}

// pinnedCmd is the command pinned starts, not started yet.
func pinnedCmd(core int, env []string, name string, args ...string) *child {
	c := &child{cmd: exec.Command("taskset", append([]string{"-c", strconv.Itoa(core), name}, args...)...)}
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stderr = &c.stderr
	return c
}

// wait ends with the child and returns its user+system CPU time. taskset execs the
// program, so the process is the program itself.
func (c *child) wait() (time.Duration, error) {
	err := c.cmd.Wait()
	ru, _ := c.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var cpu time.Duration
	if ru != nil {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if err != nil {
		return cpu, fmt.Errorf("%v: %w\n%s", c.cmd.Args, err, tail(c.stderr.String()))
	}
	return cpu, nil
}

// rss is the child's resident set size in bytes, from /proc.
func (c *child) rss() (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", c.cmd.Process.Pid)
}

// tail is the last lines of a child's output, for an error.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

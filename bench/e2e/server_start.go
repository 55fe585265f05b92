package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// startServer runs this program again as the stamping server on core 1 and returns
// its address and a function that ends it (closing its stdin).
func startServer() (string, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	c := pinnedCmd(1, []string{serverEnv + "=1", "GOMAXPROCS=1"}, exe)
	stdin, err := c.cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("server process: %w", err)
	}
	stop := func() { stdin.Close(); _ = c.cmd.Wait() }
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("server process gave no address: %w\n%s", err, tail(c.stderr.String()))
	}
	return strings.TrimSpace(addr), stop, nil
}

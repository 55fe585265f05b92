//go:build !linux

package promtest

import "os/exec"

// procAttr sets nothing: only Linux has a parent-death signal.
func procAttr(*exec.Cmd) {}

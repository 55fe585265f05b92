//go:build !linux

package chromium

import "os/exec"

// procAttr adds nothing off Linux, where CI does not run.
func procAttr(*exec.Cmd) {}

// killLeftovers does nothing off Linux: chromedp's kill of the browser
// process is what is left.
func killLeftovers(int, string) {}

// leftovers finds nothing off Linux.
func leftovers(int, string) []int { return nil }

//go:build !linux

package cputime

func readWaits() (Waits, bool) { return Waits{}, false }

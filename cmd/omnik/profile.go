package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileEnv names a file for a CPU profile of the whole process: how bench/e2e finds
// where the client's time goes under a real scenario (go tool pprof FILE).
const profileEnv = "OMNIK_CPUPROFILE"

// startProfile starts the CPU profile when profileEnv is set and returns what stops it.
func startProfile() func() {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "warning: %s: %v\n", profileEnv, err)
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

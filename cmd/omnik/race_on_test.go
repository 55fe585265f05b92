//go:build race

package main

// raceEnabled builds the e2e binary with -race too, so races in a real run fail the tests.
const raceEnabled = true

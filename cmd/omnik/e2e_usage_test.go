package main

import "testing"

// Every command line omnik cannot take, of every subcommand, exits 104 with one message
// that says what is wrong: unknown commands and flags, bad flag values, wrong argument
// counts (docs/cli.md, "Exit codes").
func TestUsageErrorsExit104(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown subcommand", []string{"frobnicate"}, `unknown command "frobnicate" for "omnik"`},
		{"unknown flag of omnik", []string{"--frobnicate"}, "unknown flag: --frobnicate"},
		{"run: unknown flag", []string{"run", "--frobnicate", "x.js"}, "unknown flag: --frobnicate"},
		{"run: bad value", []string{"run", "--vus", "many", "x.js"}, `invalid argument "many" for "-u, --vus" flag`},
		{"run: no script", []string{"run"}, "accepts 1 arg(s), received 0"},
		{"run: two scripts", []string{"run", "a.js", "b.js"}, "accepts 1 arg(s), received 2"},
		{"inspect: unknown flag", []string{"inspect", "--frobnicate", "x.js"}, "unknown flag: --frobnicate"},
		{"inspect: no script", []string{"inspect"}, "accepts 1 arg(s), received 0"},
		{"report: unknown flag", []string{"report", "--frobnicate", "r.ndjson"}, "unknown flag: --frobnicate"},
		{"report: no file", []string{"report"}, "accepts 1 arg(s), received 0"},
		{"mock: bad value", []string{"mock", "--speed", "fast"}, `invalid argument "fast" for "--speed" flag`},
		{"mock: an argument", []string{"mock", "extra"}, `unknown command "extra" for "omnik mock"`},
		{"version: unknown flag", []string{"version", "--frobnicate"}, "unknown flag: --frobnicate"},
		{"version: an argument", []string{"version", "extra"}, `unknown command "extra" for "omnik version"`},
		{"bench: unknown flag", []string{"bench", "--frobnicate"}, "unknown flag: --frobnicate"},
		{"bench: bad value", []string{"bench", "--num-prompts", "many"}, `invalid argument "many" for "--num-prompts" flag`},
		{"bench: an argument", []string{"bench", "extra"}, `unexpected argument "extra": omnik bench takes flags only`},
		{"run: --server-metrics URL without =", []string{"run", "--server-metrics", "http://u:pw@h/metrics", "a.js"},
			`"http://REDACTED@h/metrics" follows --server-metrics: write --server-metrics=URL, with the =`},
		{"bench: --server-metrics URL without =", []string{"bench", "--server-metrics", "https://h/metrics"},
			`"https://h/metrics" follows --server-metrics: write --server-metrics=URL, with the =`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Nothing starts, so the race detector's wait at exit is skipped.
			r := runOmnik(t, t.TempDir(), []string{"GORACE=atexit_sleep_ms=0"}, tc.args...)
			expect{code: 104, stderr: []string{"error: " + tc.want}}.check(t, r)
		})
	}
}

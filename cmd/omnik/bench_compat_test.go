package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/internal/tlstest"
	"github.com/omnik-dev/omnik/mock"
)

// ignoredArgs are every ignored vllm flag, with a value where it takes one.
func ignoredArgs() []string {
	var args []string
	for _, g := range ignoredVLLMFlags {
		for _, name := range g.values {
			args = append(args, "--"+name, "x")
		}
		for _, name := range g.switches {
			args = append(args, "--"+name)
		}
	}
	return args
}

// Every vllm flag that changes nothing omnik measures is accepted, and the scenario is
// the same with or without it; --help does not list them.
func TestBenchIgnoredVLLMFlagsChangeNothing(t *testing.T) {
	t.Parallel()
	base := []string{"--num-prompts", "2", "--seed", "3"}
	without := printScript(t, base...)
	with := printScript(t, append(base, ignoredArgs()...)...)
	body := func(s benchScript) string { _, rest, _ := strings.Cut(s.text, "\n"); return rest }
	if body(with) != body(without) {
		t.Errorf("the ignored flags changed the scenario:\n%s\n--- without them ---\n%s", body(with), body(without))
	}
	help := runOmnik(t, ".", []string{"GORACE=atexit_sleep_ms=0"}, "bench", "--help")
	if help.code != 0 || strings.Contains(help.stdout, "--tokenizer") || !strings.Contains(help.stdout, "--ready-check-timeout-sec") {
		t.Errorf("omnik bench --help lists the ignored flags or lacks the implemented ones:\n%s", help)
	}
	srv := startBenchServer(t)
	r := runOmnik(t, t.TempDir(), nil, append(benchArgs(srv, base...), ignoredArgs()...)...)
	expect{code: 0, stdout: []string{"Successful requests:                     2 "}}.check(t, r)
}

// --header reaches every request; the sampling flags reach the body, chat's temperature
// being 0 (greedy) without them, as the reference sends it.
func TestBenchHeadersAndSamplingOnTheWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want map[string]any
	}{
		{"defaults", nil, map[string]any{"temperature": 0.0}},
		{"sampling flags", []string{"--temperature", "0.3", "--top-k", "5", "--header", "X-Trace=abc", "X-Team= bench "},
			map[string]any{"temperature": 0.3, "top_k": 5.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startBenchServer(t)
			r := runOmnik(t, t.TempDir(), nil, append(benchArgs(srv, "--num-prompts", "2"), tc.args...)...)
			expect{code: 0}.check(t, r)
			for _, p := range srv.posts() {
				body := p.json()
				for k, v := range tc.want {
					if !reflect.DeepEqual(body[k], v) {
						t.Errorf("%s = %#v, want %#v", k, body[k], v)
					}
				}
				if tc.args != nil && (p.header.Get("X-Trace") != "abc" || p.header.Get("X-Team") != "bench") {
					t.Errorf("headers X-Trace %q X-Team %q, want abc and bench", p.header.Get("X-Trace"), p.header.Get("X-Team"))
				}
			}
		})
	}
}

// --insecure (vllm's flag) or the server's CA file benchmarks a server whose
// certificate no system trusts, which is refused without them; the calibration's
// /tokenize goes with the same settings.
func TestBenchTLS(t *testing.T) {
	t.Parallel()
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	pki := tlstest.New(t)
	args := []string{"bench", "-q", "--base-url", pki.Serve(t, sim.Handler(), false).URL, "--num-prompts", "2", "--random-input-len", "8",
		"--random-output-len", "2", "--model", "Qwen/Qwen3-Omni-30B-A3B-Instruct"}
	for _, flags := range [][]string{{"--insecure"}, {"--tls-ca-file", pki.CAFile}} {
		r := runOmnik(t, t.TempDir(), nil, append(args, flags...)...)
		expect{code: 0, stdout: []string{"Successful requests:                     2 "}, notStderr: []string{"estimated at one token per word"}}.check(t, r)
	}
	r := runOmnik(t, t.TempDir(), nil, args...)
	expect{code: 108, stderr: []string{initialTestFailed, "certificate signed by unknown authority"}}.check(t, r)
}

// --append-result adds a result line to the file, after one vllm wrote without a final
// line break.
func TestBenchAppendResult(t *testing.T) {
	t.Parallel()
	srv := startBenchServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte(`{"from": "vllm"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := runOmnik(t, dir, nil, benchArgs(srv, "--num-prompts", "1", "--append-result", "--result-filename", "r.json")...)
		expect{code: 0}.check(t, r)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want vllm's and two appended:\n%s", len(lines), data)
	}
	for i, l := range lines[1:] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["completed"] != 1.0 {
			t.Errorf("appended line %d: %v, completed %v", i+1, err, m["completed"])
		}
	}
}

// --disable-shuffle sends a file dataset in its order, whatever the seed.
func TestBenchDisableShuffleKeepsFileOrder(t *testing.T) {
	t.Parallel()
	want := []string{"Explain in a few sentences why the sky looks blue during the day.",
		"Write a short poem about a lighthouse keeper and the sea at night.",
		"List three practical tips for keeping a sourdough starter healthy."}
	for _, seed := range []string{"1", "2"} {
		srv := startBenchServer(t)
		r := runOmnik(t, t.TempDir(), nil, benchArgs(srv, "--dataset-name", "sharegpt", "--dataset-path", benchTestdata(t, "sharegpt.json"),
			"--num-prompts", "3", "--max-concurrency", "1", "--seed", seed, "--disable-shuffle")...)
		expect{code: 0}.check(t, r)
		var got []string
		for _, p := range srv.afterTest() {
			got = append(got, firstUserText(t, p))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seed %s: prompts %q, want the file's order %q", seed, got, want)
		}
	}
}

// --print-script never writes a credential given with --header or in the base URL, in
// its command line or in its options; other headers stay as given.
func TestBenchPrintScriptRedactsCredentialHeaders(t *testing.T) {
	t.Parallel()
	s := printScript(t, "--base-url", "http://user:pw-secret@127.0.0.1:1?api_key=q-secret", "--model", "m",
		"--header", "Authorization=Bearer sk-secret", "X-Trace=abc", "--header=api-key=k123")
	for _, secret := range []string{"sk-secret", "k123", "pw-secret", "q-secret"} {
		if strings.Contains(s.text, secret) {
			t.Errorf("the printed script has the credential %q:\n%s", secret, s.text)
		}
	}
	for _, want := range []string{`"Authorization=Bearer REDACTED"`, "--header=api-key=REDACTED", `"Authorization": "Bearer REDACTED"`, `"X-Trace": "abc"`} {
		if !strings.Contains(s.text, want) {
			t.Errorf("the printed script lacks %s:\n%s", want, s.text)
		}
	}
}

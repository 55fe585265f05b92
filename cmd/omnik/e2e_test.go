package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// omnikBin is the binary under test, built once by TestMain from this package.
var omnikBin string

func TestMain(m *testing.M) { os.Exit(buildAndRun(m)) }

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "omnik-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	omnikBin = filepath.Join(dir, "omnik")
	args := []string{"build", "-o", omnikBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building omnik:", err)
		return 1
	}
	return m.Run()
}

// result is what one omnik process did.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d after %v\n--- stdout ---\n%s\n--- stderr ---\n%s", r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
}

// syncBuffer lets a test read a child's output while the child still writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a started omnik process.
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	start          time.Time
	cancel         context.CancelFunc
}

// startOmnik starts the binary in dir with a clean environment plus env (KEY=VALUE).
func startOmnik(t *testing.T, dir string, env []string, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, omnikBin, args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), env...)
	p := &proc{t: t, cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting omnik %v: %v", args, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	return p
}

// wait waits for the process to exit and fails the test if it was killed by the timeout
// or the race detector spoke.
func (p *proc) wait() result {
	p.t.Helper()
	err := p.cmd.Wait()
	p.cancel()
	r := result{stdout: p.stdout.String(), stderr: p.stderr.String(), elapsed: time.Since(p.start)}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.Exited():
		r.code = exitErr.ExitCode()
	default:
		p.t.Fatalf("omnik %v did not exit by itself: %v\n%s", p.cmd.Args[1:], err, r)
	}
	if strings.Contains(r.stderr, "WARNING: DATA RACE") {
		p.t.Errorf("the race detector found a race in omnik %v:\n%s", p.cmd.Args[1:], r.stderr)
	}
	return r
}

// waitFor polls stderr until it contains s.
func (p *proc) waitFor(s string, within time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(p.stderr.String(), s) {
		if time.Now().After(deadline) {
			p.t.Fatalf("stderr has no %q after %v:\n%s", s, within, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runOmnik runs the binary to its end.
func runOmnik(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return startOmnik(t, dir, env, args...).wait()
}

// cleanEnv is the test's environment without the variables omnik reads, so a developer's
// shell cannot change what the tests see.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OMNIK_") || strings.HasPrefix(k, "OMNI_") || k == "OPENAI_API_KEY" || k == "NO_COLOR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "NO_COLOR=1")
}

// writeFiles writes name→content into a new temp dir and returns the dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// check compares a result with the wanted exit code and output fragments.
type expect struct {
	code      int
	stdout    []string
	stderr    []string
	notStdout []string
	notStderr []string
}

func (e expect) check(t *testing.T, r result) {
	t.Helper()
	if r.code != e.code {
		t.Errorf("exit code %d, want %d", r.code, e.code)
	}
	for _, s := range e.stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q", s)
		}
	}
	for _, s := range e.stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q", s)
		}
	}
	for _, s := range e.notStdout {
		if strings.Contains(r.stdout, s) {
			t.Errorf("stdout has %q", s)
		}
	}
	for _, s := range e.notStderr {
		if strings.Contains(r.stderr, s) {
			t.Errorf("stderr has %q", s)
		}
	}
	if t.Failed() {
		t.Log(r)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// scripts/release.sh builds a binary that says the version it was given, packed with a
// checksum, and the same archive twice. Only the host's platform is built, so the binary can be run.
func TestReleaseScriptStampsTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: builds a release binary")
	}
	for _, tool := range []string{"bash", "tar", "sha256sum", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipped: no %s (apt-get install coreutils tar git)", tool)
		}
	}
	t.Parallel()
	release := func() string {
		out := t.TempDir()
		cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "release.sh"))
		cmd.Env = append(os.Environ(), "VERSION=v9.8.7-test", "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH, "OUT="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("release.sh: %v\n%s", err, b)
		}
		return out
	}
	out, again := release(), release()
	name := "omnik-v9.8.7-test-" + runtime.GOOS + "-" + runtime.GOARCH
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil || !strings.Contains(string(sums), name+".tar.gz") {
		t.Fatalf("SHA256SUMS = %q, %v; want a line for %s.tar.gz", sums, err, name)
	}
	if sums2, _ := os.ReadFile(filepath.Join(again, "SHA256SUMS")); string(sums2) != string(sums) {
		t.Errorf("two builds of one version differ:\n%s\n%s", sums, sums2)
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = out
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, b)
	}
	if b, err := exec.Command("tar", "-xzf", filepath.Join(out, name+".tar.gz"), "-C", out).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, b)
	}
	b, err := exec.Command(filepath.Join(out, name, "omnik"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(b), "omnik v9.8.7-test (") {
		t.Errorf("omnik version = %q, %v; want the stamped v9.8.7-test", b, err)
	}
}

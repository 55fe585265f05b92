//go:build linux

package hostile

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// spawnEnv makes the test binary a spawner: it runs its arguments as a command and
// writes what the command used to the file the variable names. Linux
// counts a child's peak from its parent's at exec (exec_mmap keeps the old memory's
// high-water mark), so omnik started straight from this process, whose checks and
// race detector take hundreds of MiB, would report those; started from a spawner fresh
// from exec, its figure is off by the spawner's few MiB at most.
const spawnEnv = "HOSTILE_SPAWN_RUSAGE"

func TestMain(m *testing.M) {
	if out := os.Getenv(spawnEnv); out != "" {
		os.Exit(spawn(out, os.Args[1:]))
	}
	// Cells mostly wait: unless told otherwise, run parallel of them however few the
	// cores (go test's default is one a core); the cells' own slots still bound them.
	flag.Parse()
	if !flagSet("test.parallel") {
		flag.Set("test.parallel", strconv.Itoa(parallel))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// spawn runs args, killed with the spawner, and reports its peak RSS.
func spawn(out string, args []string) int {
	// The death signal follows the thread that started the child.
	runtime.LockOSThread()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, spawnEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		return 127
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	own, _ := peakRSS("/proc/self/status")
	u := spent{rss: ru.Maxrss << 10, floor: own, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())} // Maxrss is KiB on Linux
	if err := os.WriteFile(out, fmt.Appendf(nil, "%d %d %d", u.rss, u.floor, u.cpu), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		return 127
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 128 + int(cmd.ProcessState.Sys().(syscall.WaitStatus).Signal())
}

// spent is what a spawned command used: its peak resident memory, the spawner's own
// (which Linux counts in, a floor), and its CPU time.
type spent struct {
	rss, floor int64
	cpu        time.Duration
}

// spawned makes cmd run through the spawner; measured reads what it spent, once it ran.
func spawned(cmd *exec.Cmd, dir string) (measured func() (spent, error)) {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	out := filepath.Join(dir, "rusage")
	cmd.Args = append([]string{self}, cmd.Args...)
	cmd.Path = self
	// A race-detector build sleeps a second on exit unless told not to.
	cmd.Env = append(cmd.Env, spawnEnv+"="+out, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return func() (spent, error) {
		b, err := os.ReadFile(out)
		if err != nil {
			return spent{}, fmt.Errorf("the spawner wrote no figures: %w", err)
		}
		var u spent
		_, err = fmt.Sscan(string(b), &u.rss, &u.floor, &u.cpu)
		return u, err
	}
}

// peakRSS reads VmHWM, a process's peak resident memory, from its status file.
func peakRSS(status string) (int64, error) {
	st, err := os.ReadFile(status)
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib << 10, err
		}
	}
	return 0, fmt.Errorf("%s has no VmHWM", status)
}

// built is the omnik binary the matrix builds once, from this module, without -race:
// the cells measure its memory.
var built struct {
	once      sync.Once
	dir, path string
	err       error
}

func omnikBinary(t *testing.T) string {
	t.Helper()
	if *omnikFlag != "" {
		return *omnikFlag
	}
	built.once.Do(func() {
		gomod, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			built.err = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "hostile-omnik-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "omnik")
		cmd := exec.Command("go", "build", "-o", built.path, "./cmd/omnik")
		cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building omnik: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// cleanEnv is the environment without the variables that would point omnik elsewhere.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OMNI_") && !strings.HasPrefix(kv, "OMNIK_") && !strings.HasPrefix(kv, "OPENAI_") {
			env = append(env, kv)
		}
	}
	return env
}

func inMiB(b int64) float64 { return float64(b) / (1 << 20) }

package promwrite

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

func withTicks(c <-chan time.Time) Option   { return func(s *settings) { s.ticks = c } }
func withClock(now func() time.Time) Option { return func(s *settings) { s.now = now } }
func withBuffer(n int) Option               { return func(s *settings) { s.buffer = n } }

// noEnv is an empty environment: the machine's must not leak into a test.
func noEnv(string) string { return "" }

// stepClock starts at a fixed time and moves one second a call.
func stepClock() func() time.Time {
	var n atomic.Int64
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Second) }
}

// logBuffer is a goroutine-safe log.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// harness is one started output with an injected ticker, against recv.
type harness struct {
	t     *testing.T
	out   *Output
	recv  *receiver
	ticks chan time.Time
	idle  chan error // a push's outcome, once no push is in flight
	logs  *logBuffer
	reg   *metrics.Registry
}

// startOutput starts prometheus=<recv's URL><opts> with a fake clock and ticker.
func startOutput(t *testing.T, recv *receiver, opts string, extra ...Option) *harness {
	t.Helper()
	h := &harness{t: t, recv: recv, ticks: make(chan time.Time), idle: make(chan error, 100),
		logs: &logBuffer{}, reg: metrics.NewRegistry()}
	all := append([]Option{withTicks(h.ticks), withClock(stepClock()), WithEnv(noEnv),
		WithLogger(slog.New(slog.NewTextHandler(h.logs, nil))),
		func(s *settings) {
			s.handled = func(err error, idle bool) {
				if idle {
					h.idle <- err
				}
			}
		}}, extra...)
	out, err := New("prometheus="+recv.URL+"/api/v1/write"+opts, all...)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	h.out = out
	t.Cleanup(func() { _ = out.Stop() })
	return h
}

// push ticks and waits until that push (and a resend it caused) is over; it returns
// the push's error.
func (h *harness) push() error {
	h.t.Helper()
	h.ticks <- time.Time{}
	select {
	case err := <-h.idle:
		return err
	case <-time.After(30 * time.Second):
		h.t.Fatal("no push after a tick")
		return nil
	}
}

// sample is one sample of m with tags k=v pairs.
func sample(m *metrics.Metric, v float64, kv ...string) metrics.Sample {
	tags := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		tags[kv[i]] = kv[i+1]
	}
	return metrics.Sample{Metric: m, Tags: metrics.NewTagSet(tags), Value: v, Time: time.Unix(0, 0)}
}

func contains(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

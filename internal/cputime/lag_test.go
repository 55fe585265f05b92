package cputime

import (
	"context"
	"testing"
	"time"
)

// fakeSleeps is a clock that each sleep moves on by what it was asked plus the next of
// its oversleeps, and that ends the probe when they run out.
type fakeSleeps struct {
	t      time.Time
	over   []time.Duration
	onWake func() // called after each sleep, before the probe reads the clock
}

func (f *fakeSleeps) now() time.Time { return f.t }

func (f *fakeSleeps) sleep(_ context.Context, d time.Duration) bool {
	if len(f.over) == 0 {
		return false
	}
	f.t = f.t.Add(d + f.over[0])
	f.over = f.over[1:]
	if f.onWake != nil {
		f.onWake()
	}
	return true
}

// The probe keeps each period's worst oversleep, and a period begins afresh once taken.
func TestLagProbeKeepsTheWorstOversleepOfEachPeriod(t *testing.T) {
	ms := time.Millisecond
	f := &fakeSleeps{t: time.Unix(0, 0), over: []time.Duration{0, 3 * ms, 41 * ms, 2 * ms, 0, 7 * ms, 1 * ms}}
	p := newLagProbe(f.now, f.sleep)
	var taken []time.Duration
	wakes := 0
	f.onWake = func() {
		// Periods of three wake-ups: read after the 3rd and the 6th; the 7th's is left.
		if wakes++; wakes%3 == 1 && wakes > 1 {
			taken = append(taken, p.TakeWorst())
		}
	}
	p.Run(context.Background())
	want := []time.Duration{41 * ms, 7 * ms}
	if len(taken) != len(want) || taken[0] != want[0] || taken[1] != want[1] {
		t.Fatalf("periods' worst %v, want %v", taken, want)
	}
	if got := p.TakeWorst(); got != ms {
		t.Errorf("last period's worst %v, want 1ms", got)
	}
	if got := p.TakeWorst(); got != 0 {
		t.Errorf("a period without wake-ups: %v, want 0", got)
	}
}

// A sleep that came back early (a clock step) is no lag.
func TestLagProbeNeverNegative(t *testing.T) {
	f := &fakeSleeps{t: time.Unix(0, 0), over: []time.Duration{-5 * time.Millisecond}}
	p := newLagProbe(f.now, f.sleep)
	p.Run(context.Background())
	if got := p.TakeWorst(); got != 0 {
		t.Errorf("worst %v, want 0", got)
	}
}

func TestLagProbeStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { NewLagProbe().Run(ctx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the probe did not stop when its context ended")
	}
}

func TestCoresIsWithinTheMachine(t *testing.T) {
	if c := Cores(); c < 1 {
		t.Errorf("Cores() = %d", c)
	}
}

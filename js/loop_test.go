package js

import (
	"context"
	"slices"
	"testing"
	"time"
)

// A loop that wakes late (a busy machine) still runs its timers in due order, and in
// arming order when due together; a cancelled one never runs.
func TestLoopRunsTimersInDueOrderHoweverLateItWakes(t *testing.T) {
	t.Parallel()
	l := newEventLoop()
	var seen []string
	add := func(name string) func() error { return func() error { seen = append(seen, name); return nil } }
	err := l.run(context.Background(), func() error {
		l.after(20*time.Millisecond, add("20ms"))
		l.after(10*time.Millisecond, add("10ms a"))
		l.after(10*time.Millisecond, add("10ms b"))
		l.after(15*time.Millisecond, add("never")).cancel()
		l.after(0, add("0ms"))
		time.Sleep(30 * time.Millisecond) // every timer is overdue before the loop looks
		return nil
	})
	if want := []string{"0ms", "10ms a", "10ms b", "20ms"}; err != nil || !slices.Equal(seen, want) {
		t.Errorf("ran %q (err %v), want %q", seen, err, want)
	}
}

// A callback that pumps the loop (sleep in a .then, a blocking omnik/http call) while its
// siblings wait runs the callbacks that arrive meanwhile, and its siblings still run once
// each afterwards.
func TestLoopPumpedFromACallbackRunsEveryCallbackOnce(t *testing.T) {
	t.Parallel()
	l := newEventLoop()
	var seen []string
	add := func(name string) func() error { return func() error { seen = append(seen, name); return nil } }
	err := l.run(context.Background(), func() error {
		a, b := l.register(), l.register()
		a(func() error {
			seen = append(seen, "A")
			l.register()(func() error {
				seen = append(seen, "E")
				// Arriving while the pump runs E: they land where the outer walk still reads.
				l.register()(add("H"))
				l.register()(add("I"))
				return nil
			})
			done := make(chan struct{})
			close(done)
			return l.pumpWhile(context.Background(), done)
		})
		b(add("B"))
		return nil
	})
	if want := []string{"A", "E", "H", "I", "B"}; err != nil || !slices.Equal(seen, want) {
		t.Errorf("ran %q (err %v), want %q", seen, err, want)
	}
}

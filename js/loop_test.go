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

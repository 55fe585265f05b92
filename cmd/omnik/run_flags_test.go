package main

import (
	"testing"
	"time"
)

// --start-at is an RFC 3339 time or +DURATION from now; anything else is refused.
func TestParseStartAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                          {},
		"+90s":                      now.Add(90 * time.Second),
		"2026-12-01T12:05:00Z":      now.Add(5 * time.Minute),
		"2026-12-01T13:05:00+01:00": now.Add(5 * time.Minute),
	} {
		got, err := parseStartAt(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseStartAt(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"noon", "+soon", "+-5s", "12:05"} {
		if _, err := parseStartAt(bad, now); err == nil {
			t.Errorf("parseStartAt(%q) accepted", bad)
		}
	}
}

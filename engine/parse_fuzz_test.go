package engine

import (
	"testing"
	"time"
)

// FuzzParseDuration: a duration that parses prints as a Go duration that parses back to
// itself.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"500ms", "1.5", "-3s", "1e400", "9223372036854", "1h2m3.5s", " 30s ", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		back, err := ParseDuration(time.Duration(d).String())
		if err != nil || back != d {
			t.Fatalf("%q parsed as %v, which reads back as %v (%v)", s, time.Duration(d), time.Duration(back), err)
		}
	})
}

// FuzzParseSegment: a segment that parses lies within the test and reads back from its
// own form.
func FuzzParseSegment(f *testing.F) {
	for _, s := range []string{"0:1/4", "1/4:1/2", "0.5", "1/3:2/3", "0:0", "1/0", "9999999999999999999/1", "-1:1", "0.1:0.2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seg, err := ParseSegment(s)
		if err != nil {
			return
		}
		fn, fd, tn, td := seg.bounds()
		if fd <= 0 || td <= 0 || fn < 0 || tn > td || fn*td >= tn*fd {
			t.Fatalf("%q parsed as %d/%d:%d/%d", s, fn, fd, tn, td)
		}
		back, err := ParseSegment(seg.String())
		if err != nil || back.String() != seg.String() {
			t.Fatalf("%q printed as %s, which reads back as %s (%v)", s, seg, back, err)
		}
	})
}

// FuzzParseOptions: any bytes give options or an error, never a panic.
func FuzzParseOptions(f *testing.F) {
	for _, s := range []string{`{"vus":2,"duration":"3s"}`, `{"scenarios":{"a":{"executor":"constant-arrival-rate","rate":1e308,"timeUnit":"0s"}}}`,
		`{"stages":[{"duration":"1s","target":-1}]}`, `{"thresholds":{"ttft":["p(99)<1"]}}`, `[]`, `null`, `{"iterations":1e20}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = ParseOptions("fuzz", data, []string{"omni"})
	})
}

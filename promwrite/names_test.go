package promwrite

import (
	"regexp"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni"
)

// registry is a run's: the built-in metrics and the omni module's.
func registry() *metrics.Registry {
	r := metrics.NewRegistry()
	metrics.RegisterBuiltins(r)
	omni.RegisterMetrics(r)
	return r
}

var (
	metricNameRe = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRe  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// Every name follows Prometheus's rules and conventions: valid characters, the omnik_
// namespace, base units as a suffix (seconds, bytes), _total on counters and only there,
// and no two metrics of a run share a series name.
func TestSeriesNamesFollowPrometheusConventions(t *testing.T) {
	t.Parallel()
	owner := map[string]string{}
	for _, m := range registry().All() {
		for _, n := range SeriesNames(m) {
			if !metricNameRe.MatchString(n) || !strings.HasPrefix(n, Prefix) {
				t.Errorf("%s: invalid name %q", m.Name, n)
			}
			if o, ok := owner[n]; ok {
				t.Errorf("%s and %s both send %s", o, m.Name, n)
			}
			owner[n] = m.Name
		}
		f := familyOf(m)
		switch {
		case m.Contains == metrics.Time && !strings.HasSuffix(strings.TrimSuffix(f.name, "_total"), "_seconds"):
			t.Errorf("%s: a time metric without _seconds: %s", m.Name, f.name)
		case m.Contains == metrics.Data && !strings.HasSuffix(strings.TrimSuffix(f.name, "_total"), "_bytes"):
			t.Errorf("%s: a data metric without _bytes: %s", m.Name, f.name)
		}
		if isCounter := m.Kind == metrics.Counter || m.Kind == metrics.Rate; isCounter != strings.HasSuffix(f.name, "_total") {
			t.Errorf("%s (%s): %s", m.Name, m.Kind, f.name)
		}
	}
	for name, want := range map[string]string{
		"requests": "omnik_requests_total", "requests_failed": "omnik_requests_failed_total", "checks": "omnik_checks_total",
		"data_sent": "omnik_data_sent_bytes_total", "vus": "omnik_vus", "ttft": "omnik_ttft_seconds",
		"e2el": "omnik_e2el_seconds", "audio_rtf": "omnik_audio_rtf", "audio_duration": "omnik_audio_duration_seconds",
		"iteration_duration": "omnik_iteration_duration_seconds", "dropped_iterations": "omnik_dropped_iterations_total",
		"output_tokens": "omnik_output_tokens_total",
	} {
		if got := familyOf(registry().Get(name)).name; got != want {
			t.Errorf("%s → %s, want %s", name, got, want)
		}
	}
	r := metrics.NewRegistry()
	for m, want := range map[*metrics.Metric]string{
		r.MustNew("wait_seconds", metrics.Trend, metrics.Time):    "omnik_wait_seconds",
		r.MustNew("jobs_total", metrics.Counter, metrics.Default): "omnik_jobs_total",
		r.MustNew("body", metrics.Gauge, metrics.Data):            "omnik_body_bytes",
		r.MustNew("busy", metrics.Counter, metrics.Time):          "omnik_busy_seconds_total",
	} {
		if got := familyOf(m).name; got != want {
			t.Errorf("%s → %s, want %s", m.Name, got, want)
		}
	}
	for _, n := range SelfSeriesNames() {
		if !metricNameRe.MatchString(n) || owner[n] != "" {
			t.Errorf("the output's own %s is invalid or taken", n)
		}
	}
}

func TestLabelNames(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"scenario": "scenario", "stage_id": "stage_id", "my-tag": "my_tag", "a.b c": "a_b_c", "9lives": "_9lives",
		"héllo": "h_llo", "__name__": "tag___name__", "__x": "tag___x", "le": "tag_le", "outcome": "tag_outcome", "": "",
	} {
		got := labelName(key)
		if got != want {
			t.Errorf("labelName(%q) = %q, want %q", key, got, want)
		}
		if got != "" && !labelNameRe.MatchString(got) {
			t.Errorf("labelName(%q) = %q is not a label name", key, got)
		}
	}
}

// The native bucket of v is the one whose bounds (2^((i-1)/8), 2^(i/8)] hold it; bounds
// themselves belong to the bucket they close.
func TestNativeBucketBounds(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{1e-6, 0.001, 0.0123, 0.5, 0.999, 1, 1.0001, 1.5, 2, 3, 17.3, 600, 1e9} {
		i := NativeBucket(v)
		lo, hi := nativeUpper(i-1), nativeUpper(i)
		if !(lo < v && v <= hi*(1+1e-15)) {
			t.Errorf("%v in bucket %d: (%v, %v]", v, i, lo, hi)
		}
	}
	for i := int32(-40); i <= 40; i++ {
		if got := NativeBucket(nativeUpper(i)); got != i && got != i+1 {
			t.Errorf("the upper bound of bucket %d lands in %d", i, got)
		}
	}
	if NativeBucket(2) != 8 || NativeBucket(0.5) != -8 {
		t.Errorf("powers of two: 2 → %d, 0.5 → %d", NativeBucket(2), NativeBucket(0.5))
	}
}

func TestClassicLayouts(t *testing.T) {
	t.Parallel()
	for name, b := range map[string][]float64{"time": timeBounds, "ratio": ratioBounds, "data": dataBounds, "count": countBounds} {
		for i := 1; i < len(b); i++ {
			if r := b[i] / b[i-1]; r <= 1 || r > 1.5+1e-9 {
				t.Errorf("%s: %v after %v (ratio %v)", name, b[i], b[i-1], r)
			}
		}
	}
	if timeBounds[0] != 0.001 || timeBounds[len(timeBounds)-1] != 700 || formatBound(timeBounds[1]) != "0.0015" {
		t.Errorf("time layout %v", timeBounds)
	}
	r := registry()
	if ClassicBounds(r.Get("audio_rtf"))[0] != 0.01 || ClassicBounds(r.Get("ttft"))[0] != 0.001 || ClassicBounds(r.Get("requests")) != nil {
		t.Error("layouts by metric")
	}
}

package promwrite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/internal/promtest"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/promwrite"
	"github.com/omnik-dev/omnik/testrun"
)

// e2eScript is chat and speech side by side, enough requests for a p99 that is not the
// maximum, and the trend stats the checks compare.
const e2eScript = `import omni from 'omni';
import { check } from 'omnik';
export const options = {
  scenarios: {
    chat: { executor: 'per-vu-iterations', vus: 4, iterations: 40, exec: 'chat' },
    speech: { executor: 'per-vu-iterations', vus: 1, iterations: 10, exec: 'speech' },
  },
  summaryTrendStats: ['count', 'p(50)', 'p(99)'],
};
export async function chat() {
  const r = await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'Tell me about the tide.' }], max_tokens: 16 });
  check(r, { 'chat ok': (x) => x.ok });
}
export async function speech() {
  await omni.audio.speech({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'The quick brown fox.', voice: 'vivian' });
}
`

// A real run, pushed to a real Prometheus, reads back as the run's own summary: the
// request count exactly, and p99 latencies within one bucket of the histogram, for
// native histograms (the feature on) and classic ones (the feature off: auto falls
// back, said once). The Grafana dashboard's queries all evaluate on what it stored.
func TestARunReadsBackFromARealPrometheus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		native bool
	}{{"native", true}, {"classic fallback", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []promtest.Option
			if tc.native {
				opts = append(opts, promtest.NativeHistograms())
			}
			prom := promtest.Start(t, opts...)
			testid := fmt.Sprintf("e2e-%d", time.Now().UnixNano())
			// A short interval, so pushes during the run come before the final one.
			// A long timeout: a loaded machine may skip a tick, but must not fail a push.
			r := runWithPrometheus(t, prom.WriteURL()+",interval=200ms,timeout=30s,testid="+testid)
			if strings.Contains(r.log, "output failed") {
				t.Fatalf("the output failed:\n%s", r.log)
			}
			if fallbacks := strings.Count(r.log, "refuses native histograms"); fallbacks != map[bool]int{true: 0, false: 1}[tc.native] {
				t.Errorf("the switch to classic was said %d times:\n%s", fallbacks, r.log)
			}
			// Every push stamps the push time: query after the last one, within the lookback.
			at := time.Now().Add(time.Second)
			sel := `{testid="` + testid + `"}`

			want := r.summary.Metrics["requests"].Values["count"]
			got := prom.Value(t, `sum(omnik_requests_total`+sel+`)`, at)
			t.Logf("requests: Prometheus %v, summary %v", got, want)
			if got != want || want == 0 {
				t.Errorf("sum(omnik_requests_total) = %v, the summary counted %v", got, want)
			}

			pushes := prom.Value(t, `omnik_remote_write_pushes_total`+sel, at)
			failed := prom.Value(t, `omnik_remote_write_pushes_failed_total`+sel, at)
			t.Logf("pushes: %v, failed %v", pushes, failed)
			if pushes < 1 || failed != 0 {
				t.Errorf("%v pushes, %v failed", pushes, failed)
			}

			classicSeries := prom.Query(t, `omnik_e2el_seconds_bucket`+sel, at)
			if tc.native == (len(classicSeries) > 0) {
				t.Errorf("native %v, yet %d classic bucket series", tc.native, len(classicSeries))
			}
			for _, name := range []string{"e2el", "ttft"} {
				expr := `histogram_quantile(0.99, sum(omnik_` + name + `_seconds` + sel + `))`
				if !tc.native {
					expr = `histogram_quantile(0.99, sum by (le) (omnik_` + name + `_seconds_bucket` + sel + `))`
				}
				checkQuantile(t, name, tc.native, prom.Value(t, expr, at), r)
			}
			checkDashboard(t, prom, testid, at)
		})
	}
}

// checkQuantile holds Prometheus's p99 estimate est of a trend against the run's own
// values of it (the record stream's, the same Measure the metric takes) and its summary.
//
// histogram_quantile ranks at q·n and interpolates within the bucket holding that
// order statistic, x_k with k = ceil(q·n): est must lie in x_k's bucket. numpy's p99
// (the summary's) interpolates between the order statistics next to (n-1)·q, so it
// lies within one order statistic of x_k; with a sparse tail (a loaded machine, 1% of
// a few hundred requests) those can be buckets apart. So est is within one bucket's
// width plus that gap of the summary's p99.
func checkQuantile(t *testing.T, name string, native bool, est float64, r e2eRun) {
	t.Helper()
	xs := slices.Sorted(slices.Values(r.values[name]))
	n := len(xs)
	if float64(n) != r.summary.Metrics[name].Values["count"] || n < 100 {
		t.Fatalf("%s: %d values from the records, the summary counted %v", name, n, r.summary.Metrics[name].Values["count"])
	}
	summary := r.summary.Metrics[name].Values["p(99)"] / 1000
	if np := numpyPercentile(xs, 99); math.Abs(np-summary) > 1e-9*summary {
		t.Fatalf("%s: numpy's p99 of the records' values is %v, the summary's %v: not the same values", name, np, summary)
	}
	k := int(math.Ceil(0.99*float64(n))) - 1 // 0-based
	lo, hi := bucketRange(native, xs[k])
	slack := 1e-9 * hi
	if est < lo-slack || est > hi+slack {
		t.Errorf("%s: p99 %v s from Prometheus is outside (%v, %v], the bucket of x_%d = %v s", name, est, lo, hi, k+1, xs[k])
	}
	gap := xs[k] - xs[max(k-1, 0)]
	if k+1 < n {
		gap = max(gap, xs[k+1]-xs[k])
	}
	tolerance := (hi - lo) + gap
	t.Logf("%s p99 (%d values): Prometheus %.6f s, summary %.6f s (%+.2f%%); tolerance %.6f s = its bucket (%.6f, %.6f] + the order-statistic gap %.6f",
		name, n, est, summary, 100*(est-summary)/summary, tolerance, lo, hi, gap)
	if math.Abs(est-summary) > tolerance+slack {
		t.Errorf("%s: p99 %v s from Prometheus, %v s in the summary: more than %v apart", name, est, summary, tolerance)
	}
}

// bucketRange is the bucket (lo, hi] holding v > 0: native schema 3, or the classic
// layout of a Time trend.
func bucketRange(native bool, v float64) (lo, hi float64) {
	if native {
		i := promwrite.NativeBucket(v)
		return promwrite.NativeUpper(i - 1), promwrite.NativeUpper(i)
	}
	bounds := promwrite.ClassicBounds(&metrics.Metric{Name: "e2el", Kind: metrics.Trend, Contains: metrics.Time})
	i := sort.SearchFloat64s(bounds, v)
	switch {
	case i == len(bounds): // +Inf: Prometheus answers the highest finite bound
		return bounds[i-1], bounds[i-1]
	case i == 0:
		return 0, bounds[0]
	}
	return bounds[i-1], bounds[i]
}

// numpyPercentile is numpy's default (linear) percentile of sorted xs.
func numpyPercentile(xs []float64, p float64) float64 {
	h := float64(len(xs)-1) * p / 100
	i := int(math.Floor(h))
	if i+1 >= len(xs) {
		return xs[i]
	}
	return xs[i] + (xs[i+1]-xs[i])*(h-float64(i))
}

type e2eRun struct {
	log     string
	values  map[string][]float64 // seconds, per trend, from the records
	summary struct {
		Metrics map[string]struct{ Values map[string]float64 } `json:"metrics"`
	}
}

// runWithPrometheus runs e2eScript in-process against a simulator at 20× speed with
// --out prometheus=spec, and reads its summary export.
func runWithPrometheus(t *testing.T, spec string) e2eRun {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.js")
	if err := os.WriteFile(path, []byte(e2eScript), 0o644); err != nil {
		t.Fatal(err)
	}
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	var mu sync.Mutex
	r := e2eRun{values: map[string][]float64{}}
	keep := record.SubscriberFunc(func(rec *record.Record) {
		if !rec.OK() { // interrupted or failed: no latency samples
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, name := range []string{"e2el", "ttft"} {
			record.MeasureNamed(name).Each(rec, func(ms float64) { r.values[name] = append(r.values[name], ms/1000) })
		}
	})
	test, err := testrun.Load(testrun.Options{
		Subscribers: []record.Subscriber{keep},
		Script:      testrun.Script{Path: path}, Quiet: true, Log: slog.New(slog.NewTextHandler(logs, nil)),
		Outs: []string{"prometheus=" + spec}, SummaryExport: filepath.Join(dir, "summary.json"),
		Omni: testrun.OmniOptions{Mock: sim},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer test.Close()
	code, err := test.Run(context.Background())
	if err != nil || code != 0 {
		t.Fatalf("run: exit %d, %v\n%s", code, err, logs)
	}
	r.log = logs.String()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r.summary); err != nil {
		t.Fatal(err)
	}
	return r
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

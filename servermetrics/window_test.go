package servermetrics

import (
	"math"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
)

func TestParseKeepsRecognisedFamiliesAndFlattensHistograms(t *testing.T) {
	pts := mustParse(t, page{running: 2, success: 5, ttft: [4]float64{1, 3, 5, 5}, ttftSum: 0.4})
	fams := map[string]int{}
	for _, p := range pts {
		fams[p.Series.Family]++
	}
	want := map[string]int{"vllm:num_requests_running": 1, "vllm:num_requests_waiting": 1,
		"vllm:request_success_total": 1, "vllm:time_to_first_token_seconds": 6}
	for f, n := range want {
		if fams[f] != n {
			t.Errorf("%s: %d points, want %d (all: %v)", f, fams[f], n, fams)
		}
	}
	if fams["process_cpu_seconds_total"] != 0 {
		t.Error("an unrecognised family was kept")
	}
}

func TestParseReadsTheLegacyOmniPrefixAsTheNewOne(t *testing.T) {
	pts := mustParse(t, page{legacy: true, stageInflight: map[string]float64{"thinker": 1}})
	for _, p := range pts {
		if p.Series.Family == "vllm_omni:stage_inflight_requests" {
			return
		}
	}
	t.Fatal("vllm:omni_stage_inflight_requests was not read as vllm_omni:stage_inflight_requests")
}

func TestParseRefusesAMalformedPage(t *testing.T) {
	if _, _, err := Parse([]byte("vllm:x{a=\"1\" 3\n"), recognised); err == nil {
		t.Fatal("a page with an unclosed label set parsed")
	}
}

func TestWindowCountersIncreaseAcrossAServerRestart(t *testing.T) {
	w := NewWindow(0)
	w.Add(scrapeOf(t, 0, Before, page{success: 10}))
	w.Add(scrapeOf(t, time.Second, During, page{success: 15}))
	w.Add(scrapeOf(t, 2*time.Second, During, page{success: 3})) // restarted: 3 new
	w.Add(scrapeOf(t, 4*time.Second, After, page{success: 7}))
	inc, last, ok := w.counter("vllm:request_success_total", nil)
	if !ok || inc != 5+3+4 || last != 7 {
		t.Fatalf("increase %g last %g ok %v, want 12, 7, true", inc, last, ok)
	}
	s := w.sink("vllm:request_success_total", nil)
	if v, _ := s.Value(metrics.Stat{Name: "rate"}, 0); v != 3 {
		t.Fatalf("rate %g, want 12 / 4 s = 3", v)
	}
}

func TestWindowGaugesAreJudgedOnThePagesDuringTheRun(t *testing.T) {
	w := NewWindow(0)
	w.Add(scrapeOf(t, 0, Before, page{waiting: 100}))
	w.Add(scrapeOf(t, time.Second, During, page{waiting: 2}))
	w.Add(scrapeOf(t, 2*time.Second, During, page{waiting: 6}))
	w.Add(scrapeOf(t, 3*time.Second, After, page{waiting: 0}))
	g, ok := w.gauge("vllm:num_requests_waiting", nil)
	if !ok || g.n != 2 || g.mean() != 4 || g.max != 6 || g.min != 2 || g.last != 6 {
		t.Fatalf("gauge %+v, want the two pages during the run: mean 4, max 6", g)
	}
}

func TestWindowGaugesOfAShortRunUseEveryPage(t *testing.T) {
	w := NewWindow(0)
	w.Add(scrapeOf(t, 0, Before, page{running: 1}))
	w.Add(scrapeOf(t, time.Second, After, page{running: 3}))
	if g, _ := w.gauge("vllm:num_requests_running", nil); g.n != 2 || g.max != 3 {
		t.Fatalf("gauge %+v, want both pages", g)
	}
}

func TestWindowSumsStagesAndFollowsWatchedSelections(t *testing.T) {
	w := NewWindow(0)
	w.Watch("vllm:omni_stage_inflight_requests", map[string]string{"model_name": "m"})
	w.Add(scrapeOf(t, time.Second, During, page{stageInflight: map[string]float64{"thinker": 3, "talker": 2}}))
	all, _ := w.gauge("vllm_omni:stage_inflight_requests", nil)
	talker, _ := w.gauge("vllm_omni:stage_inflight_requests", map[string]string{"stage": "talker"})
	watched, ok := w.gauge("vllm_omni:stage_inflight_requests", map[string]string{"model_name": "m"})
	if all.last != 5 || talker.last != 2 || !ok || watched.last != 5 {
		t.Fatalf("all %g talker %g watched %g (%v), want 5, 2, 5", all.last, talker.last, watched.last, ok)
	}
}

func TestHistogramQuantileIsPrometheusInterpolation(t *testing.T) {
	h := histogram{count: 10, buckets: []bucket{{0.05, 2}, {0.1, 6}, {0.5, 10}, {math.Inf(1), 10}}}
	for _, c := range []struct{ q, want float64 }{
		{0.1, 0.025},  // rank 1 in (0, 0.05]: half of it
		{0.5, 0.0875}, // rank 5 in (0.05, 0.1] holding 2..6: 3/4 of it
		{0.99, 0.49},  // rank 9.9 in (0.1, 0.5] holding 6..10
	} {
		if got, ok := h.quantile(c.q); !ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("q%g = %g (%v), want %g", c.q, got, ok, c.want)
		}
	}
	inInf := histogram{count: 4, buckets: []bucket{{0.1, 1}, {math.Inf(1), 4}}}
	if got, _ := inInf.quantile(0.9); got != 0.1 {
		t.Errorf("a rank in +Inf gives %g, want the largest finite bound 0.1", got)
	}
	if _, ok := (histogram{}).quantile(0.5); ok {
		t.Error("an empty histogram has a quantile")
	}
	if _, ok := (histogram{count: 2, buckets: []bucket{{0.1, 1}, {0.5, 2}}}).quantile(0.5); ok {
		t.Error("a histogram without +Inf (cut at the series cap) has a quantile")
	}
	// A restart between two pages can leave bucket increases falling with the bound
	// ([5,5] then [4,6] increase by [4,1]): raised as histogram_quantile raises them.
	bent := histogram{count: 4, buckets: []bucket{{0.1, 4}, {0.5, 1}, {math.Inf(1), 4}}}
	if got, _ := bent.quantile(0.5); got != 0.05 {
		t.Errorf("non-monotonic buckets: q0.5 = %g, want 0.05", got)
	}
}

func TestWindowHistogramIsTheIncreaseOverTheWindow(t *testing.T) {
	w := NewWindow(0)
	w.Add(scrapeOf(t, 0, Before, page{ttft: [4]float64{5, 5, 5, 5}, ttftSum: 0.1}))
	w.Add(scrapeOf(t, 2*time.Second, After, page{ttft: [4]float64{7, 11, 15, 15}, ttftSum: 1.1}))
	s := w.sink("vllm:time_to_first_token_seconds", nil)
	count, _ := s.Value(metrics.Stat{Name: "count"}, 0)
	avg, _ := s.Value(metrics.Stat{Name: "avg"}, 0)
	p50, _ := s.Value(metrics.Percentile(50), 0)
	if count != 10 || math.Abs(avg-0.1) > 1e-12 || math.Abs(p50-0.0875) > 1e-12 {
		t.Fatalf("count %g avg %g p50 %g, want 10, 0.1, 0.0875 (the 5 requests before the run left out)", count, avg, p50)
	}
	if _, ok := s.Value(metrics.Stat{Name: "max"}, 0); ok {
		t.Error("a histogram answered max, which its buckets do not know")
	}
}

func TestWindowRefusesSeriesPastItsCap(t *testing.T) {
	w := NewWindow(3)
	w.Add(scrapeOf(t, 0, During, page{}))
	if len(w.series) != 3 || w.refused == 0 {
		t.Fatalf("%d series kept, %d refused; want 3 kept and the rest counted", len(w.series), w.refused)
	}
}

func TestWindowCountsFailedPagesByKind(t *testing.T) {
	w := NewWindow(0)
	w.Add(Scrape{Err: "status_500", Detail: "answered 500"})
	w.Add(Scrape{Err: "status_500", Detail: "later"})
	w.Add(Scrape{Err: "timeout"})
	r := w.Summarise("u", nil)
	if r.Failed["status_500"] != 2 || r.Failed["timeout"] != 1 || r.FailedDetail["status_500"] != "answered 500" || r.Pages != 0 {
		t.Fatalf("report %+v", r)
	}
}

func TestTimelineStaysBoundedAndKeepsTheMax(t *testing.T) {
	var tl timeline
	for i := range 10 * timelinePoints {
		tl.add(time.Duration(i)*time.Second, float64(i%7))
	}
	if len(tl.points) > timelinePoints {
		t.Fatalf("%d points, over %d", len(tl.points), timelinePoints)
	}
	for _, p := range tl.points {
		if p.Max != 6 {
			t.Fatalf("a point of %d pages lost the max: %+v", p.n, p)
		}
	}
}

func TestSinksAnswerTheThresholdsOnServerFamilies(t *testing.T) {
	w := NewWindow(0)
	reg := metrics.NewRegistry()
	lookup := func(n string) *metrics.Metric {
		if m := reg.Get(n); m != nil {
			return m
		}
		return Metric(n)
	}
	ths, err := metrics.ParseThresholds([]byte(`{"server:vllm:num_requests_waiting": ["max < 8"], "server:vllm:omni_stage_inflight_requests{stage:talker}": ["avg <= 2"]}`), []string{"server:vllm:time_to_first_token_seconds.p(99) < 0.5"}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	w.WatchThresholds(ths)
	w.Add(scrapeOf(t, 0, Before, page{}))
	w.Add(scrapeOf(t, time.Second, During, page{waiting: 9, stageInflight: map[string]float64{"talker": 2, "thinker": 7}, ttft: [4]float64{1, 1, 1, 1}}))
	w.Add(scrapeOf(t, 2*time.Second, After, page{ttft: [4]float64{1, 1, 1, 1}}))
	snap := metrics.NewSnapshot(time.Second, map[string]metrics.Sink{}).WithSinks(w.Sinks(ths))
	ev := metrics.EvaluateThresholds(ths, snap)
	got := map[string]bool{}
	for _, r := range ev.Results {
		got[r.Threshold.String()] = r.OK
	}
	want := map[string]bool{
		"server:vllm:num_requests_waiting.max < 8":                        false,
		"server:vllm:omni_stage_inflight_requests{stage:talker}.avg <= 2": true,
		"server:vllm:time_to_first_token_seconds.p(99) < 0.5":             true,
	}
	for k, v := range want {
		if ok, seen := got[k]; !seen || ok != v {
			t.Errorf("%s: ok=%v (seen %v), want %v; all %v", k, ok, seen, v, got)
		}
	}
}

func TestAThresholdOnAFamilyTheServerLacksHasNoData(t *testing.T) {
	ths, err := metrics.ParseThresholds(nil, []string{"server:vllm:nope.max < 1"}, Metric)
	if err != nil {
		t.Fatal(err)
	}
	ev := metrics.EvaluateThresholds(ths, metrics.NewSnapshot(time.Second, nil).WithSinks(NewWindow(0).Sinks(ths)))
	if r := ev.Results[0]; r.OK || !r.NoData {
		t.Fatalf("%+v, want a failed threshold without data", r)
	}
}

func TestASeriesBornDuringTheWindowCountsFromZero(t *testing.T) {
	w := NewWindow(0)
	w.Add(scrapeOf(t, 0, Before, page{}))
	late := scrapeOf(t, time.Second, After, page{})
	late.Points = append(late.Points, Point{&Series{Family: "vllm_omni:audio_frames_total", Type: typeCounter,
		Labels: []Label{{"stage", "2"}}}, 48000})
	w.Add(late)
	if inc, _, _ := w.counter("vllm_omni:audio_frames_total", nil); inc != 48000 {
		t.Fatalf("increase %g: a series created after the first page lost its first value", inc)
	}
	first := NewWindow(0)
	first.Add(late)
	if inc, _, _ := first.counter("vllm_omni:audio_frames_total", nil); inc != 0 {
		t.Fatalf("increase %g on the first page: what came before the window is not in it", inc)
	}
}

func TestTheLastPageBeforeTheRunIsTheBaseline(t *testing.T) {
	w := NewWindow(0)
	w.Add(scrapeOf(t, 0, Before, page{success: 10}))
	w.Add(scrapeOf(t, 3*time.Second, Before, page{success: 40})) // setup() sent 30
	w.Add(scrapeOf(t, 4*time.Second, After, page{success: 45}))
	if inc, _, _ := w.counter("vllm:request_success_total", nil); inc != 5 || w.span() != time.Second {
		t.Fatalf("increase %g over %v, want 5 over the 1 s since the last page before the run", inc, w.span())
	}
}

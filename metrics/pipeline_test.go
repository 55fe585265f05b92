package metrics

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPipelineFoldsEveryCollectedSample(t *testing.T) {
	t.Parallel()
	reg := testRegistry()
	ttft, iters := reg.Get("ttft"), reg.Get("iterations")
	p := NewPipeline(WithBuffer(4))
	audio := NewTagSet(map[string]string{"modality": "audio"})
	if err := p.AddSubMetric(ttft, audio); err != nil {
		t.Fatal(err)
	}
	p.Start()
	if err := p.AddSubMetric(ttft, nil); err != ErrStarted {
		t.Errorf("AddSubMetric after Start = %v", err)
	}
	var wg sync.WaitGroup
	for vu := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tags := NewTagSet(map[string]string{"modality": "audio", "vu_group": string(rune('a' + vu%2))})
			for i := range 1000 {
				p.Collect([]Sample{{Metric: ttft, Tags: tags, Value: float64(i)}, {Metric: iters, Value: 1}})
				if i%250 == 0 {
					p.Snapshot() // snapshots interleave with ingestion
				}
			}
		}()
	}
	wg.Wait()
	mid := p.Snapshot()
	p.Collect([]Sample{{Metric: ttft, Value: 5000}})
	final := p.Stop()
	if got := mid.Sink("iterations").Count(); got != 8000 {
		t.Errorf("snapshot after Collect returned saw %d iterations, want 8000", got)
	}
	if got := final.Sink("ttft").Count(); got != 8001 {
		t.Errorf("ttft count %d, want 8001", got)
	}
	sub := final.Sink(SubMetricName("ttft", audio))
	if got, _ := sub.Value(Stat{Name: "max"}, 0); sub.Count() != 8000 || got != 999 {
		t.Errorf("sub-metric count %d max %v, want 8000 and 999 (the untagged 5000 excluded)", sub.Count(), got)
	}
	if final.Series != 4 {
		t.Errorf("series = %d, want 4 (ttft×2 tag sets, ttft untagged, iterations)", final.Series)
	}
	p.Collect([]Sample{{Metric: iters, Value: 1}})
	if p.Late() != 1 || p.Stop().Sink("iterations").Count() != 8000 {
		t.Errorf("late = %d; a sample after Stop must be dropped and counted", p.Late())
	}
	if p.Snapshot() != final {
		t.Error("Snapshot after Stop is not the final snapshot")
	}
}

func TestPipelineWarnsOncePastSeriesLimit(t *testing.T) {
	t.Parallel()
	var warnings []string
	var mu sync.Mutex
	logf := func(f string, a ...any) { mu.Lock(); warnings = append(warnings, f); mu.Unlock() }
	m := testRegistry().Get("ttft")
	p := NewPipeline(WithSeriesWarning(10), WithLogger(logf))
	p.Start()
	for i := range 30 {
		p.Collect([]Sample{{Metric: m, Tags: NewTagSet(map[string]string{"id": string(rune('A' + i))}), Value: 1}})
	}
	snap := p.Stop()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "distinct metric series") || snap.Series != 30 {
		t.Errorf("warnings %q, series %d", warnings, snap.Series)
	}
}

func TestPipelineDropsInvalidSamplesAndTracksChecksAndGroups(t *testing.T) {
	t.Parallel()
	reg := testRegistry()
	b := RegisterBuiltins(reg)
	now := time.Unix(0, 0)
	p := NewPipeline(WithClock(func() time.Time { return now }))
	p.Start()
	nan := 0.0
	nan /= nan
	c := func(g, name string, v float64) Sample {
		return Sample{Metric: b.Checks, Tags: NewTagSet(map[string]string{"group": g, "check": name}), Value: v}
	}
	p.Collect([]Sample{{Value: 1}, {Metric: b.Iterations, Value: nan}, c("::a", "ok", 1), c("::a", "ok", 0), c("", "ok", 1),
		{Metric: b.GroupDuration, Tags: NewTagSet(map[string]string{"group": "::b::c"}), Value: 3}})
	now = now.Add(3 * time.Second)
	snap := p.Stop()
	if snap.Invalid != 2 || snap.Elapsed != 3*time.Second {
		t.Errorf("invalid %d elapsed %v", snap.Invalid, snap.Elapsed)
	}
	want := []CheckCount{{"::a", "ok", 1, 1}, {"", "ok", 1, 0}}
	if len(snap.Checks) != 2 || snap.Checks[0] != want[0] || snap.Checks[1] != want[1] {
		t.Errorf("checks %+v, want %+v", snap.Checks, want)
	}
	if strings.Join(snap.Groups, " ") != "::a ::b::c" {
		t.Errorf("groups %q", snap.Groups)
	}
}

// Outputs get every batch, marked when it was derived from records, and the sinks fold
// both kinds alike.
func TestPipelineForwardsToOutputs(t *testing.T) {
	t.Parallel()
	var got []bool
	var mu sync.Mutex
	out := &recordingOutput{add: func(s []Sample, derived bool) {
		mu.Lock()
		defer mu.Unlock()
		for range s {
			got = append(got, derived)
		}
	}}
	p := NewPipeline(WithOutputs(out))
	p.Start()
	m := testRegistry().Get("ttft")
	p.Collect([]Sample{{Metric: m, Value: 1}, {Metric: m, Value: 2}})
	p.CollectDerived([]Sample{{Metric: m, Value: 3}})
	snap := p.Stop()
	if !slices.Equal(got, []bool{false, false, true}) {
		t.Errorf("output got derived flags %v, want [false false true]", got)
	}
	if n := snap.Sink("ttft").Count(); n != 3 {
		t.Errorf("ttft folded %d samples, want 3", n)
	}
}

type recordingOutput struct{ add func([]Sample, bool) }

func (o *recordingOutput) Description() string                 { return "recording" }
func (o *recordingOutput) Start() error                        { return nil }
func (o *recordingOutput) AddSamples(s []Sample, derived bool) { o.add(s, derived) }
func (o *recordingOutput) AddEntry(Entry)                      {}
func (o *recordingOutput) Stop() error                         { return nil }
func (o *recordingOutput) Lost() int64                         { return 0 }

// SnapshotOf copies only the named sinks; thresholds read the same values from it as
// from a full snapshot.
func TestSnapshotOfCopiesOnlyTheNamedSinks(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	a := reg.MustNew("a", Trend, Time)
	b := reg.MustNew("b", Counter, Default)
	p := NewPipeline()
	sel := NewTagSet(map[string]string{"k": "v"})
	if err := p.AddSubMetric(a, sel); err != nil {
		t.Fatal(err)
	}
	p.Start()
	defer p.Stop()
	p.Collect([]Sample{{Metric: a, Value: 3, Tags: sel}, {Metric: a, Value: 5}, {Metric: b, Value: 1}})
	snap := p.SnapshotOf("a", SubMetricName("a", sel))
	if snap.Sink("b") != nil {
		t.Error("b was copied though not asked for")
	}
	if s := snap.Sink("a"); s == nil || s.Count() != 2 {
		t.Errorf("a = %v", s)
	}
	if s := snap.Sink(SubMetricName("a", sel)); s == nil || s.Count() != 1 {
		t.Errorf("a{k:v} = %v", s)
	}
}

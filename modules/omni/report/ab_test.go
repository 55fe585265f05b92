package report

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// onTarget sends the request to a named target (the tag omni.client({target}) sets).
func onTarget(name string) func(*record.Record) {
	return func(r *record.Record) {
		if r.Tags == nil {
			r.Tags = map[string]string{}
		}
		r.Tags["target"] = name
	}
}

// mirrored marks the request as one of the size records of mirrored call id.
func mirrored(id, size string) func(*record.Record) {
	return func(r *record.Record) {
		r.Metadata = map[string]string{record.MetaPair: id, record.MetaPairSize: size}
	}
}

// abRun is eight mirrored calls to the default target and to b, b 10 ms slower to its
// first token and 30 ms slower to its end except in call 7, where it is faster; call 8
// failed on b.
func abRun() []*record.Record {
	var recs []*record.Record
	for i := range 8 {
		id := string(rune('1' + i))
		start := float64(i) * 200
		ttft, e2el := 40+float64(i), 150+2*float64(i)
		bTTFT, bE2EL := ttft+10, e2el+30
		if i == 6 {
			bTTFT, bE2EL = ttft-5, e2el-20
		}
		recs = append(recs, req(at(start, e2el), text(ttft, 20, 20, 20), tokens(12, 4), mirrored(id, "2")))
		b := req(at(start, bE2EL), text(bTTFT, 25, 25, 25), tokens(12, 4), mirrored(id, "2"), onTarget("b"))
		if i == 7 {
			b = req(at(start, 5), failed(record.KindHTTPStatus), onTarget("b"), mirrored(id, "2"))
		}
		recs = append(recs, b)
	}
	return recs
}

// The A/B block lines up each target's Serving rows, with differences from the baseline
// and the mirrored calls' paired differences; the whole run's block comes first, as it
// would with one target.
func TestABBlockGolden(t *testing.T) {
	t.Parallel()
	s := NewSection(SectionOptions{Percentiles: []float64{50, 99}})
	for _, r := range abRun() {
		s.Add(r)
	}
	out := sectionText(t, s)
	block := abBlock(t, out)
	if !strings.Contains(strings.TrimSuffix(out, block), "Successful requests:                     15 ") {
		t.Errorf("the whole run's block does not come first with both targets' requests:\n%s", out)
	}
	compareGolden(t, "ab_block.golden", block)
}

// Each target's column is what a run of that target's requests alone would print: the
// first target's accumulator, forked from the whole run's when b's first request came,
// carries every list, total and peak event (a dense second's counts included) across.
func TestABTargetsAggregateAsSeparateRuns(t *testing.T) {
	t.Parallel()
	// A first request of 4500 tokens in one second: its second keeps counts, not events.
	gaps := make([]float64, 4500)
	for i := range gaps {
		gaps[i] = 0.2
	}
	recs := append([]*record.Record{req(at(0, 950), text(10, gaps...))}, abRun()...)
	for i, r := range recs {
		// Both scenarios have requests of both targets: the whole run's peaks are the
		// union of the scenarios' timelines, which the fork absorbs.
		r.Scenario = []string{"x", "y"}[i/2%2]
	}
	opts := SectionOptions{Percentiles: []float64{50, 99}, Scenarios: []string{"x", "y"}}
	s := NewSection(opts)
	alone := map[string]*Section{record.DefaultTarget: NewSection(opts), "b": NewSection(opts)}
	for _, r := range recs {
		s.Add(r)
		alone[targetOf(r)].Add(r)
	}
	s.mu.Lock()
	tab := s.ab()
	s.mu.Unlock()
	if tab == nil || len(tab.results) != 2 {
		t.Fatalf("A/B results = %v, want default and b", tab)
	}
	for _, tr := range tab.results {
		a := alone[tr.name]
		a.mu.Lock()
		want := a.results()[0].result
		a.mu.Unlock()
		if !reflect.DeepEqual(tr.result, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tr.name, tr.result, want)
		}
	}
	if tab.results[0].result.PeakOutputTokens < 4500 {
		t.Errorf("default's peak output tokens %v lost the dense second's 4500", tab.results[0].result.PeakOutputTokens)
	}
}

// A run of one target prints the blocks it always printed, whether or not its client
// is named, and a run of two without mirrored calls prints no paired rows.
func TestABBlockOnlyForTwoTargetsAndPairedRowsOnlyForMirroredCalls(t *testing.T) {
	t.Parallel()
	printed := func(recs ...*record.Record) string {
		s := NewSection(SectionOptions{})
		for _, r := range recs {
			s.Add(r)
		}
		if js := s.JSON().(map[string]any); (js["ab"] != nil) != strings.Contains(sectionText(t, s), "A/B Benchmark Result") {
			t.Errorf("JSON ab = %v disagrees with the text", js["ab"])
		}
		return sectionText(t, s)
	}
	plain := printed(req(at(0, 100), text(10, 5)), req(at(50, 100), text(10, 5)))
	named := printed(req(at(0, 100), text(10, 5), onTarget("b")), req(at(50, 100), text(10, 5), onTarget("b")))
	if plain != named || strings.Contains(plain, "A/B") {
		t.Errorf("one target:\n%s\nnamed:\n%s", plain, named)
	}
	unpaired := printed(req(at(0, 100), text(10, 5)), req(at(50, 120), text(12, 5), onTarget("b")))
	if !strings.Contains(unpaired, "A/B Benchmark Result") || strings.Contains(unpaired, "Paired") {
		t.Errorf("two targets, no mirrored call:\n%s", unpaired)
	}
}

// Pairs are matched by id whatever the order and whatever comes between them; a call
// mirrored to two targets pairs each two of them; a pair is compared either way round.
func TestPairingMatchesByIDAndComparesEitherWay(t *testing.T) {
	t.Parallel()
	p := newPairing(0)
	add := func(target string, ttft float64, id, size string) {
		p.add(req(at(0, 100), text(ttft, 5), mirrored(id, size)), target)
	}
	add("c", 30, "2", "3")
	add("b", 20, "1", "3")
	p.add(req(at(0, 100), text(99, 5)), "b") // no pair
	add("default", 10, "2", "3")
	add("c", 25, "1", "3")
	add("b", 15, "2", "3")
	add("default", 5, "1", "3")
	if len(p.pending) != 0 {
		t.Errorf("pending = %v after every call's records arrived", p.pending)
	}
	for _, tc := range []struct {
		base, target string
		mean         float64
	}{{"default", "b", 10}, {"b", "default", -10}, {"default", "c", 20}, {"b", "c", 10}, {"c", "b", -10}} {
		pr, ok := p.result(tc.base, tc.target)
		if !ok || pr.Pairs != 2 || len(pr.Metrics) == 0 || pr.Metrics[0].Name != "ttft" {
			t.Fatalf("%s vs %s: %+v, %v", tc.target, tc.base, pr, ok)
		}
		d := pr.Metrics[0]
		wantBelow, wantAbove := 0, 2
		if tc.mean < 0 {
			wantBelow, wantAbove = 2, 0
		}
		if d.Mean != tc.mean || d.Median != tc.mean || d.Below != wantBelow || d.Above != wantAbove {
			t.Errorf("%s − %s: %+v, want mean and median %v", tc.target, tc.base, d, tc.mean)
		}
	}
}

// The order-statistic interval and the sign test against Binomial(n, ½) by hand.
func TestMedianCIRankAndSignTest(t *testing.T) {
	t.Parallel()
	// n=5: P(X≤0) = 1/32 > 2.5%; n=6: 1/64; n=10: P(X≤1) = 11/1024, P(X≤2) = 56/1024.
	for n, want := range map[int]int{1: 0, 5: 0, 6: 1, 10: 2} {
		if k := medianCIRank(n); k != want {
			t.Errorf("medianCIRank(%d) = %d, want %d", n, k, want)
		}
	}
	for _, tc := range []struct {
		below, above int
		want         float64
	}{{0, 7, 2.0 / 128}, {7, 0, 2.0 / 128}, {3, 3, 1}, {0, 0, 1}, {1, 9, 2 * 11.0 / 1024}} {
		if p := signTestP(tc.below, tc.above); math.Abs(p-tc.want) > 1e-12 {
			t.Errorf("signTestP(%d, %d) = %v, want %v", tc.below, tc.above, p, tc.want)
		}
	}
}

// Three targets of different kinds: a row one lacks shows "-", percentages differ in
// points, and each target after the baseline has its own Δ and Δ% columns.
func TestABBlockGoldenThreeTargets(t *testing.T) {
	t.Parallel()
	s := NewSection(SectionOptions{})
	for i := range 3 {
		start := float64(i) * 500
		s.Add(req(at(start, 400), text(50, 10, 10), tokens(20, 3), chatAudio(120, 380, 1.5, 36000)))
		s.Add(req(at(start, 460), text(60, 12, 12), tokens(20, 3), chatAudio(150, 440, 1.5, 36000), onTarget("b")))
	}
	// c streams speech: a continuity measurement, one chunk late enough to underrun.
	s.Add(req(at(0, 300), speech(9600, 30, 60, 90), onTarget("c")))
	s.Add(req(at(500, 900), speech(9600, 30, 500, 510), onTarget("c")))
	compareGolden(t, "ab_block_three.golden", abBlock(t, sectionText(t, s)))
}

// abBlock is the A/B block of a section's text, from its first line on.
func abBlock(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "=== A/B Benchmark Result")
	if i < 0 {
		t.Fatalf("no A/B block:\n%s", out)
	}
	return out[strings.LastIndex(out[:i], "\n")+1:]
}

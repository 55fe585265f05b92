package mock

import (
	"context"
	"math/rand/v2"
	"sort"
	"time"
)

// pipeline is one request's run through a profile's stages. Outputs the
// client sees are written when their time comes and stamped with the clock
// at that moment; internal outputs are stamped with their planned time. The
// stage metrics come from those stamps, so they agree with what the client
// measures.
type pipeline struct {
	stages    []Stage
	plans     []stagePlan
	accept    time.Time
	visible   []bool
	stamps    [][]time.Time
	finished  []*stageMetrics
	tokensIn  int
	pixels    int    // width·height of one image
	finish    string // finish_reason of the text stage
	lastShown int    // index into steps() of the last visible output
}

// step is one output of one stage.
type step struct {
	stage, index int
	at           time.Duration
}

type pipelineInput struct {
	stages   []Stage // the profile's stages the request needs, in order
	visible  []bool  // which of them the client sees
	units    []int
	steps    int
	images   int
	pixels   int
	tokensIn int
	finish   string
	rng      *rand.Rand
}

func (s *Server) newPipeline(in pipelineInput) *pipeline {
	plans := buildPlan(in.stages, planInput{
		units: in.units, steps: in.steps, images: in.images, load: s.loadFactor(),
		speed: s.cfg.Speed, jitter: s.cfg.Jitter, rng: in.rng,
	})
	pl := &pipeline{
		stages: in.stages, plans: plans, accept: time.Now(), visible: in.visible,
		stamps: make([][]time.Time, len(plans)), finished: make([]*stageMetrics, len(plans)),
		tokensIn: in.tokensIn, pixels: in.pixels, finish: in.finish,
	}
	steps := pl.steps()
	for i, st := range steps {
		if pl.visible[st.stage] {
			pl.lastShown = i
		}
	}
	return pl
}

// steps lists every output of every stage in time order.
func (pl *pipeline) steps() []step {
	var out []step
	for si, sp := range pl.plans {
		for i, at := range sp.outputs {
			out = append(out, step{stage: si, index: i, at: at})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// run walks the timeline, sleeping until each visible output is due and
// calling emit for it; last is true for the final visible output.
func (pl *pipeline) run(ctx context.Context, emit func(st step, last bool) error) error {
	for i, st := range pl.steps() {
		due := pl.accept.Add(st.at)
		stamp := due
		if pl.visible[st.stage] {
			if err := sleepUntil(ctx, due); err != nil {
				return err
			}
			stamp = time.Now()
		}
		pl.stamps[st.stage] = append(pl.stamps[st.stage], stamp)
		if st.index == len(pl.plans[st.stage].outputs)-1 {
			pl.finished[st.stage] = pl.stageMetrics(st.stage)
		}
		if pl.visible[st.stage] {
			if err := emit(st, i == pl.lastShown); err != nil {
				return err
			}
		}
		if i == pl.lastShown {
			// Stages after the last visible output would not delay the client.
			break
		}
	}
	return nil
}

// tokensOut is the number of text tokens the first text stage produces.
func (pl *pipeline) tokensOut() int {
	for i, st := range pl.stages {
		if st.Output == OutputText {
			return sum(pl.plans[i].units)
		}
	}
	return 0
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func sleepUntil(ctx context.Context, t time.Time) error {
	return sleepCtx(ctx, time.Until(t))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

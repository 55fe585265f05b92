package mock

import (
	"context"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"time"
)

// pipeline is one request's run through a profile's stages. Outputs the
// client sees are written when their time comes and stamped with the clock
// at that moment; internal outputs are stamped with their planned time. The
// stage metrics and the /metrics observations come from those stamps, so
// they agree with what the client measures.
//
// A pipeline is admitted to the scheduler when it is made and leaves it at
// done, which every handler calls (a deferred done(errAborted) catches the
// early returns). Scrapes read it from another goroutine: accept, met and
// tokensIn are set before admission, steps and engineCum before ready is
// stored, and the progress through next; the rest belongs to the handler.
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
	lastShown int    // index into steps of the last visible output

	steps     []step // every output of every stage, in time order
	engineCum []int  // tokens the engine stage made in steps[:i]
	met       *modelMetrics
	sched     *scheduler
	seq       uint64       // admission order, set by the scheduler
	ready     atomic.Bool  // plans, steps and engineCum are set
	next      atomic.Int32 // index into steps of the output run is at
	ended     bool
}

// step is one output of one stage.
type step struct {
	stage, index int
	at           time.Duration
}

type pipelineInput struct {
	profile  *Profile // the served profile, for its metrics
	stages   []Stage  // the profile's stages the request needs, in order
	visible  []bool   // which of them the client sees
	units    []int
	steps    int
	images   int
	pixels   int
	tokensIn int
	finish   string
	rng      *rand.Rand
}

// newPipeline admits a request and plans it at the load it was admitted
// under, itself included, so the latency curve and the scheduler gauges of
// /metrics count the same requests.
func (s *Server) newPipeline(in pipelineInput) *pipeline {
	pl := &pipeline{
		stages: in.stages, accept: time.Now(), visible: in.visible,
		tokensIn: in.tokensIn, pixels: in.pixels, finish: in.finish,
		met: s.metrics.byProfile[in.profile], sched: s.sched,
	}
	n := s.sched.admit(pl)
	pl.plans = buildPlan(in.stages, planInput{
		units: in.units, steps: in.steps, images: in.images, load: s.loadFactor(n),
		speed: s.cfg.Speed, jitter: s.cfg.Jitter, rng: in.rng,
	})
	pl.stamps, pl.finished = make([][]time.Time, len(pl.plans)), make([]*stageMetrics, len(pl.plans))
	pl.steps = pl.timeOrder()
	pl.engineCum = make([]int, len(pl.steps)+1)
	for i, st := range pl.steps {
		if pl.visible[st.stage] {
			pl.lastShown = i
		}
		pl.engineCum[i+1] = pl.engineCum[i]
		if st.stage == pl.met.engine {
			pl.engineCum[i+1] += pl.plans[st.stage].units[st.index]
		}
	}
	pl.ready.Store(true)
	return pl
}

// timeOrder lists every output of every stage in time order.
func (pl *pipeline) timeOrder() []step {
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
	for i, st := range pl.steps {
		pl.next.Store(int32(i))
		due := pl.accept.Add(st.at)
		stamp := due
		if pl.visible[st.stage] {
			if err := sleepUntil(ctx, due); err != nil {
				return err
			}
			stamp = time.Now()
		}
		pl.stamp(st, stamp)
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

// stamp records that output st was written (or, internal, made) at t.
func (pl *pipeline) stamp(st step, t time.Time) {
	pl.stamps[st.stage] = append(pl.stamps[st.stage], t)
	if st.index == len(pl.plans[st.stage].outputs)-1 {
		pl.finished[st.stage] = pl.stageMetrics(st.stage)
	}
	pl.met.observeOutput(pl, st)
}

// done ends the request's life in the engine: err nil means it finished as
// the server meant, errEngineFailed that the engine failed it, anything else
// that it was cut short (client gone, connection reset). Only the first call
// counts. On the normal path handlers call it before the response's last
// byte, so a client that has read a whole response finds it counted; the
// cut a fault makes can reach the client first.
func (pl *pipeline) done(err error) {
	if pl.ended {
		return
	}
	pl.ended = true
	pl.met.finishRequest(pl, err)
	pl.sched.leave(pl)
}

// progress is the index into steps of the output the request works on at
// now: the first not yet due by the plan or, when the stream runs late (a
// stall), the one run is at; never past the last visible one.
func (pl *pipeline) progress(now time.Time) int {
	elapsed := now.Sub(pl.accept)
	due := sort.Search(len(pl.steps), func(i int) bool { return pl.steps[i].at > elapsed })
	return min(due, int(pl.next.Load()), pl.lastShown)
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

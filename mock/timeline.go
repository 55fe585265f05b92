package mock

import (
	"math"
	"math/rand/v2"
	"time"
)

// stagePlan is when one stage starts and when each of its outputs is due,
// as offsets from the moment the request was accepted.
type stagePlan struct {
	submit  time.Duration
	outputs []time.Duration
	units   []int // tokens, audio chunks (1) or images in each output
	steps   int   // denoise steps of an image stage
	// lead is an image stage's time to its first denoise step: its
	// diffusion_exec_s is the rest of its generation time.
	lead time.Duration
}

// planInput is what one request contributes to its timeline.
type planInput struct {
	units  []int   // units per stage, after max_tokens and input-length scaling
	steps  int     // denoise steps requested (0 = the stage's default)
	images int     // images requested
	load   float64 // per-unit latency factor from the batch-size curve
	speed  float64
	jitter float64
	rng    *rand.Rand
}

// buildPlan lays out the outputs of every stage. A stage cannot emit output
// i of n before its upstream emitted the same fraction of its outputs, so a
// slow thinker holds back the talker the way a real pipeline does.
func buildPlan(stages []Stage, in planInput) []stagePlan {
	plans := make([]stagePlan, len(stages))
	gap := func(d Duration, loaded bool) time.Duration {
		v := float64(d)
		if loaded {
			v *= in.load
		}
		if in.jitter > 0 {
			v *= 1 + in.jitter*(2*in.rng.Float64()-1)
		}
		return time.Duration(v / in.speed)
	}
	for i, st := range stages {
		sp := &plans[i]
		var up *stagePlan
		if i > 0 {
			up = &plans[i-1]
			sp.submit = up.outputs[0]
			if st.WaitForUpstream {
				sp.submit = up.outputs[len(up.outputs)-1]
			}
		}
		t := sp.submit + gap(st.TimeToFirstOutput, false)
		if st.diffusion() {
			sp.lead = t - sp.submit
			sp.steps = st.DenoiseSteps
			if in.steps > 0 {
				sp.steps = in.steps
			}
			for range sp.steps {
				t += gap(st.StepTime, true)
			}
			sp.outputs, sp.units = []time.Duration{t}, []int{max(in.images, 1)}
			continue
		}
		units, per := in.units[i], st.UnitsPerChunk
		if st.Output == OutputAudio {
			per = 1
		}
		n := (units + per - 1) / per
		for c := range n {
			k := min(per, units-c*per)
			if c > 0 {
				t += gap(st.TimePerUnit, true)
			}
			for range k - 1 {
				t += gap(st.TimePerUnit, true)
			}
			if up != nil {
				need := int(math.Ceil(float64((c+1)*len(up.outputs))/float64(n))) - 1
				t = max(t, up.outputs[need])
			}
			sp.outputs = append(sp.outputs, t)
			sp.units = append(sp.units, k)
		}
	}
	return plans
}

// stageUnits scales each stage's configured units by scale and, when
// maxTokens cuts the first text stage short, scales the later stages by the
// same ratio: a talker speaks only the text the thinker wrote.
func stageUnits(stages []Stage, scale float64, maxTokens int) []int {
	out := make([]int, len(stages))
	ratio := 1.0
	for i, st := range stages {
		u := max(1, int(math.Round(float64(st.Units)*scale*ratio)))
		if st.Output == OutputText && maxTokens > 0 && u > maxTokens && ratio == 1 {
			ratio = float64(maxTokens) / float64(u)
			u = maxTokens
		}
		out[i] = u
	}
	return out
}

// loadFactor is the batch-size curve for a request admitted with n in flight,
// itself included: 1 up to the knee, then growing linearly with each request
// beyond it.
func (s *Server) loadFactor(n int) float64 {
	if n <= s.cfg.KneeConcurrency {
		return 1
	}
	return 1 + s.cfg.LoadSlope*float64(n-s.cfg.KneeConcurrency)
}

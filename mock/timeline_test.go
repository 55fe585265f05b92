package mock

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestBuildPlan(t *testing.T) {
	t.Parallel()
	p, _ := BuiltinProfile("qwen3-omni")
	if err := p.validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		load   float64
		speed  float64
		jitter float64
	}{
		{"nominal", 1, 1, 0},
		{"loaded", 3, 1, 0},
		{"fast", 1, 10, 0},
		{"jittered", 1, 1, 0.3},
	}
	nominal := buildPlan(p.Stages, planInput{units: stageUnits(p.Stages, 1, 0), load: 1, speed: 1})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plans := buildPlan(p.Stages, planInput{units: stageUnits(p.Stages, 1, 0), load: tc.load, speed: tc.speed,
				jitter: tc.jitter, rng: rand.New(rand.NewPCG(1, 2))})
			for i, sp := range plans {
				if len(sp.outputs) != len(nominal[i].outputs) {
					t.Fatalf("stage %d: %d outputs, want %d", i, len(sp.outputs), len(nominal[i].outputs))
				}
				for k := 1; k < len(sp.outputs); k++ {
					if sp.outputs[k] < sp.outputs[k-1] {
						t.Fatalf("stage %d output %d goes back in time", i, k)
					}
				}
				if i > 0 {
					up := plans[i-1]
					// Causality: no stage finishes before the one feeding it.
					if sp.submit < up.outputs[0] || sp.outputs[len(sp.outputs)-1] < up.outputs[len(up.outputs)-1] {
						t.Fatalf("stage %d runs ahead of stage %d", i, i-1)
					}
				}
			}
			first, want := plans[0].outputs[0], time.Duration(float64(nominal[0].outputs[0])/tc.speed)
			if tc.jitter == 0 && first != want {
				t.Errorf("first token at %v, want %v (time to first output is not load-dependent)", first, want)
			}
			gap := plans[0].outputs[1] - plans[0].outputs[0]
			nomGap := time.Duration(float64(nominal[0].outputs[1]-nominal[0].outputs[0]) * tc.load / tc.speed)
			if lo, hi := float64(nomGap)*(1-tc.jitter), float64(nomGap)*(1+tc.jitter); float64(gap) < lo-1 || float64(gap) > hi+1 {
				t.Errorf("token gap %v outside [%v, %v]", gap, time.Duration(lo), time.Duration(hi))
			}
		})
	}
}

func TestStageUnitsFollowMaxTokens(t *testing.T) {
	t.Parallel()
	p, _ := BuiltinProfile("qwen3-omni")
	if got := stageUnits(p.Stages, 1, 24); got[0] != 24 || got[1] != 15 || got[2] != 3 {
		t.Fatalf("units = %v: a talker speaks only the text the thinker wrote", got)
	}
	if got := stageUnits(p.Stages, 2, 0); got[0] != 96 || got[2] != 10 {
		t.Fatalf("units at scale 2 = %v", got)
	}
}

package engine

import (
	"math"
	"math/rand/v2"
)

// gammaGaps draws inter-arrival gaps like vllm bench serve: gamma-distributed with shape
// k (burstiness) and scale mean/k, so the mean gap is mean whatever k is and the
// variance is mean²/k. k = 1 gives exponential gaps, a Poisson process; k < 1 is
// burstier, k > 1 more regular. A fixed seed gives the same gaps on every instance, which
// lets execution segments split one schedule.
type gammaGaps struct {
	rng          *rand.Rand
	shape, scale float64
}

func newGammaGaps(seed uint64, shape, mean float64) *gammaGaps {
	return &gammaGaps{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), shape: shape, scale: mean / shape}
}

// next returns the next gap, in the unit of mean.
func (g *gammaGaps) next() float64 {
	if g.scale == 0 {
		return 0
	}
	return g.scale * gamma(g.rng, g.shape)
}

// gamma samples Gamma(k, 1) by Marsaglia and Tsang's method (2000); for k < 1 it uses
// Gamma(k) = Gamma(k+1)·U^(1/k).
func gamma(r *rand.Rand, k float64) float64 {
	if k < 1 {
		return gamma(r, k+1) * math.Pow(r.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

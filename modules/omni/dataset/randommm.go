package dataset

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Bucket is one entry of `--random-mm-bucket-config`, vLLM-Omni's (H, W, T) key with its
// probability: an image of Width×Height when Frames is 1; audio when Height is 0, of Width
// seconds and Frames channels. Video (Frames > 1) is not generated.
type Bucket struct {
	Height int     `json:"height"`
	Width  int     `json:"width"`
	Frames int     `json:"frames"`
	Prob   float64 `json:"prob"`
}

// Modality is "image", "audio" or "video", by vLLM-Omni's rule.
func (b Bucket) Modality() string {
	switch {
	case b.Height == 0:
		return "audio"
	case b.Frames == 1:
		return "image"
	default:
		return "video"
	}
}

// MMSpec mirrors the `--random-mm-*` flags. Zero values take vLLM's defaults.
type MMSpec struct {
	// BaseItems is the mean number of items per request (--random-mm-base-items-per-request,
	// default 1).
	BaseItems int `json:"baseItems,omitempty"`
	// ItemsRangeRatio r in [0, 1] draws each request's count uniformly from
	// [floor(n(1−r)), ceil(n(1+r))] (--random-mm-num-mm-items-range-ratio).
	ItemsRangeRatio float64 `json:"itemsRangeRatio,omitempty"`
	// Limits caps items per modality and request (--random-mm-limit-mm-per-prompt, default
	// image 255, video 1, audio 255).
	Limits map[string]int `json:"limits,omitempty"`
	// Buckets are the item shapes and their probabilities (--random-mm-bucket-config,
	// default 256×256 and 1280×720 images, half each).
	Buckets []Bucket `json:"buckets,omitempty"`
	// AudioSampleRate of generated WAVs; default 48000 Hz as vLLM-Omni.
	AudioSampleRate int `json:"audioSampleRate,omitempty"`
}

func (m MMSpec) withDefaults() MMSpec {
	if m.BaseItems == 0 {
		m.BaseItems = 1
	}
	if m.Limits == nil {
		m.Limits = map[string]int{"image": 255, "video": 1, "audio": 255}
	}
	if m.Buckets == nil {
		m.Buckets = []Bucket{{256, 256, 1, 0.5}, {720, 1280, 1, 0.5}, {720, 1280, 16, 0}}
	}
	if m.AudioSampleRate == 0 {
		m.AudioSampleRate = 48000
	}
	return m
}

// itemPlan is the validated form of an MMSpec: buckets with positive probability, the
// limits of their modalities, and the range of item counts.
type itemPlan struct {
	buckets []Bucket
	limits  map[string]int
	lo, hi  int
}

// plan validates m as vLLM's get_mm_item_sampling_params does.
func (m MMSpec) plan() (itemPlan, error) {
	var p itemPlan
	if !(m.ItemsRangeRatio >= 0 && m.ItemsRangeRatio <= 1) {
		return p, fmt.Errorf("dataset: --random-mm-num-mm-items-range-ratio %v: want [0, 1]", m.ItemsRangeRatio)
	}
	if m.BaseItems < 0 {
		return p, fmt.Errorf("dataset: --random-mm-base-items-per-request %d: want at least 0", m.BaseItems)
	}
	p.limits = map[string]int{}
	for _, b := range m.Buckets {
		switch {
		case b.Prob < 0 || math.IsNaN(b.Prob):
			return p, fmt.Errorf("dataset: --random-mm-bucket-config (%d, %d, %d): probability %v is negative", b.Height, b.Width, b.Frames, b.Prob)
		case b.Prob == 0:
			continue
		case b.Modality() == "video":
			return p, fmt.Errorf("dataset: --random-mm-bucket-config (%d, %d, %d): omnik does not generate video", b.Height, b.Width, b.Frames)
		case b.Width < 1 || b.Frames < 1 || b.Height < 0:
			return p, fmt.Errorf("dataset: --random-mm-bucket-config (%d, %d, %d): sizes must be positive", b.Height, b.Width, b.Frames)
		}
		limit, ok := m.Limits[b.Modality()]
		if !ok {
			return p, fmt.Errorf("dataset: --random-mm-bucket-config has %s but --random-mm-limit-mm-per-prompt has no %q", b.Modality(), b.Modality())
		}
		p.buckets = append(p.buckets, b)
		p.limits[b.Modality()] = limit
	}
	if len(p.buckets) == 0 {
		return p, fmt.Errorf("dataset: --random-mm-bucket-config: no bucket has a positive probability")
	}
	total := 0
	for _, v := range p.limits {
		total += v
	}
	p.lo = max(0, int(math.Floor(float64(m.BaseItems)*(1-m.ItemsRangeRatio))))
	p.hi = min(total, int(math.Ceil(float64(m.BaseItems)*(1+m.ItemsRangeRatio))))
	if p.lo > p.hi {
		return p, fmt.Errorf("dataset: random-mm items per request: minimum %d exceeds maximum %d (the limits allow %d)", p.lo, p.hi, total)
	}
	return p, nil
}

// draw picks one request's items as vLLM's get_mm_item_iterator does: a count in
// [lo, hi], then buckets by probability; a modality at its limit leaves the draw and the
// rest are renormalized.
func (p itemPlan) draw(u func() float64, intN func(int) int) []Bucket {
	n := p.lo + intN(p.hi-p.lo+1)
	probs := make([]float64, len(p.buckets))
	for i, b := range p.buckets {
		probs[i] = b.Prob
	}
	count := map[string]int{}
	var out []Bucket
	for len(out) < n {
		i := pick(probs, u())
		if i < 0 {
			break
		}
		b := p.buckets[i]
		if count[b.Modality()] < p.limits[b.Modality()] {
			count[b.Modality()]++
			out = append(out, b)
			continue
		}
		for j, o := range p.buckets {
			if o.Modality() == b.Modality() {
				probs[j] = 0
			}
		}
	}
	return out
}

// pick returns the index that x in [0, 1) falls on in the cumulative (unnormalized)
// weights, or -1 when all are zero.
func pick(weights []float64, x float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		return -1
	}
	x *= total
	last := -1
	for i, w := range weights {
		if w == 0 {
			continue
		}
		last = i
		if x < w {
			return i
		}
		x -= w
	}
	return last
}

// loadRandomMM makes random prompts and attaches synthetic images and audio to each.
// Media are generated up front on all cores: each item's content depends only on the seed
// and its place, so the result does not depend on scheduling. Memory is the sum of the
// items: a W×H image of random pixels is about 3·W·H bytes, a second of audio 2·rate·channels.
func loadRandomMM(spec Spec) ([]Sample, error) {
	if spec.Path != "" {
		return nil, fmt.Errorf("dataset: --dataset-path %q: the %s dataset reads no file", spec.Path, spec.Name)
	}
	p, err := spec.MM.plan()
	if err != nil {
		return nil, err
	}
	samples, err := randomPrompts(spec)
	if err != nil {
		return nil, err
	}
	r := newRand(spec.Seed, streamItems)
	type job struct {
		b    Bucket
		seed uint64
		into **Media
	}
	var jobs []job
	for i := range samples {
		s := &samples[i]
		items := p.draw(r.Float64, r.IntN)
		for _, b := range items {
			if b.Modality() == "image" {
				s.Images = append(s.Images, nil)
			} else {
				s.Audio = append(s.Audio, nil)
			}
		}
		// The slices have their final length now, so pointers into them stay valid.
		img, aud := 0, 0
		for _, b := range items {
			into := &s.Audio
			k := &aud
			if b.Modality() == "image" {
				into, k = &s.Images, &img
			}
			jobs = append(jobs, job{b, r.Uint64(), &(*into)[*k]})
			*k++
		}
	}
	var wg sync.WaitGroup
	next := make(chan job)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range next {
				if j.b.Modality() == "image" {
					*j.into = syntheticImage(j.b.Width, j.b.Height, j.seed)
				} else {
					*j.into = syntheticAudio(j.b.Width, j.b.Frames, spec.MM.AudioSampleRate, j.seed)
				}
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	return samples, nil
}

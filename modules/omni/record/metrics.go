package record

import "time"

// The functions below compute omni-metrics.md §3 from a Record. Each returns ok = false
// when the request has no such sample (the reference then adds nothing to its list).

// E2EL is the end-to-end latency: the last message before [DONE] (streams) or the end of
// the body, from the start.
func E2EL(r *Record) time.Duration { return r.End }

// E2ELFromIntended is E2EL measured from the intended start, which charges the client's
// own scheduling lag to the request (open-model executors).
func E2ELFromIntended(r *Record) time.Duration {
	if r.IntendedStart.IsZero() {
		return r.End
	}
	return r.End + r.Start.Sub(r.IntendedStart)
}

// TTFT is the time to the first text chunk carrying new, non-empty content.
func TTFT(r *Record) (time.Duration, bool) {
	if len(r.TextChunks) == 0 {
		return 0, false
	}
	return r.TextChunks[0].At, true
}

// TTFC is omnik's time to first chunk: the first non-empty chunk of any modality.
func TTFC(r *Record) (time.Duration, bool) {
	first, ok := time.Duration(0), false
	take := func(at time.Duration) {
		if !ok || at < first {
			first, ok = at, true
		}
	}
	if len(r.TextChunks) > 0 {
		take(r.TextChunks[0].At)
	}
	if len(r.AudioChunks) > 0 {
		take(r.AudioChunks[0].At)
	}
	if len(r.ImageTimes) > 0 {
		take(r.ImageTimes[0])
	}
	return first, ok
}

// MaxITLEntries bounds the ITL entries of one request, so a server's token counts never
// size an allocation: past it, later gaps are added to the last entry, so no time is lost.
const MaxITLEntries = 1 << 20

// ITL returns the inter-token latencies. When every text chunk carries a running
// usage.completion_tokens, entries are token-weighted: a chunk adding k tokens adds k
// entries of gap/k and the first chunk adds k−1 zeros, so the entries sum to
// t_last − t_first. A chunk whose count did not grow still adds its gap as one entry, so
// no time is lost. Without continuous usage there is one entry per chunk gap. A chunk is
// credited at most as many tokens as it has bytes, a request at most MaxITLEntries
// entries: what was received bounds what a count can claim.
func ITL(r *Record) []time.Duration {
	tc := r.TextChunks
	if len(tc) == 0 {
		return nil
	}
	continuous := true
	for _, c := range tc {
		if c.Tokens < 0 {
			continuous = false
			break
		}
	}
	if !continuous {
		itl := make([]time.Duration, 0, len(tc)-1)
		for i := 1; i < len(tc); i++ {
			itl = append(itl, tc[i].At-tc[i-1].At)
		}
		return itl
	}
	credit := func(tokens int32, c TextChunk) int {
		return min(int(tokens), max(int(c.Bytes), 1), MaxITLEntries)
	}
	first := max(credit(tc[0].Tokens, tc[0])-1, 0)
	itl := make([]time.Duration, first, min(first+len(tc), MaxITLEntries))
	for i := 1; i < len(tc); i++ {
		gap := tc[i].At - tc[i-1].At
		k := max(credit(tc[i].Tokens-tc[i-1].Tokens, tc[i]), 1)
		if len(itl)+k > MaxITLEntries && len(itl) > 0 {
			itl[len(itl)-1] += gap
			continue
		}
		for range k {
			itl = append(itl, gap/time.Duration(k))
		}
	}
	return itl
}

// TPOT is the time per output token excluding the first: the mean of the ITL entries.
// Needs n > 1. The reference falls back to (text_latency − ttft)/(n−1) when ITL is empty,
// but here ITL is empty only with a single text chunk, where that difference is 0 and the
// reference gives no sample either.
func TPOT(r *Record) (time.Duration, bool) {
	itl := ITL(r)
	if r.Usage.Completion <= 1 || len(itl) == 0 {
		return 0, false
	}
	var sum time.Duration
	for _, d := range itl {
		sum += d
	}
	return sum / time.Duration(len(itl)), true
}

// AudioTTFP is the time to the first non-empty audio chunk.
func AudioTTFP(r *Record) (time.Duration, bool) {
	if len(r.AudioChunks) == 0 {
		return 0, false
	}
	return r.AudioChunks[0].At, true
}

// AudioRTF is the real-time factor: for speech, E2EL over the audio duration; for the
// other endpoints, the last audio chunk's arrival over the duration.
func AudioRTF(r *Record) (float64, bool) {
	if r.Audio.Seconds <= 0 || len(r.AudioChunks) == 0 {
		return 0, false
	}
	end := r.AudioChunks[len(r.AudioChunks)-1].At
	if r.Endpoint == EndpointSpeech {
		end = r.End
	}
	return end.Seconds() / r.Audio.Seconds, true
}

// AudioUnderrun is the longest playback stall, in seconds, of audio played from the first
// chunk's arrival with no pre-roll (omni-metrics.md §4.3). Measured for streamed speech
// only, as the reference does; chat audio has no measurement.
func AudioUnderrun(r *Record) (float64, bool) {
	ch := r.AudioChunks
	bps := float64(r.Audio.SampleRate * r.Audio.FrameBytes)
	if (r.Endpoint != EndpointSpeech && r.Endpoint != EndpointAudioStream) || len(ch) == 0 || bps <= 0 {
		return 0, false
	}
	worst, played := 0.0, 0.0
	for i := 1; i < len(ch); i++ {
		played += float64(ch[i-1].Bytes) / bps
		worst = max(worst, (ch[i].At-ch[0].At).Seconds()-played)
	}
	return worst, true
}

// ImageCount is the larger of the images received and Σ output_unit_count of image stages.
func ImageCount(r *Record) int {
	staged := 0.0
	for _, s := range r.Stages {
		if s.OutputUnitType == "image" {
			staged += s.Values["output_unit_count"]
		}
	}
	return max(r.Images.Count, int(staged))
}

// ImageGenerationMS is Σ stage_gen_time_ms of image stages, else the largest *_gen_ms
// in stage_durations.
func ImageGenerationMS(r *Record) (float64, bool) {
	sum := 0.0
	for _, s := range r.Stages {
		if kindOf(s) == StageImage {
			sum += s.Values["stage_gen_time_ms"]
		}
	}
	if sum > 0 || ImageCount(r) == 0 {
		// The profile's *_gen_ms times an image only when there is one: a speech or chat
		// response's profile times its other stages, a video job's its video
		// (Video.GenerationMS, from LargestGenMS).
		return sum, sum > 0
	}
	sum = LargestGenMS(r.Images.StageDurations)
	return sum, sum > 0
}

// DenoiseStepMS is the largest server denoise_step_latency_ms over image stages.
func DenoiseStepMS(r *Record) (float64, bool) {
	step := 0.0
	for _, s := range r.Stages {
		if kindOf(s) == StageImage {
			step = max(step, s.Values["denoise_step_latency_ms"])
		}
	}
	return step, step > 0
}

package report

import (
	"fmt"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// stage prints one stage's blocks, chosen by its kind (§7.3). The metric selection gates
// the latency blocks; timing and image blocks ignore it, as upstream.
func (p *printer) stage(s *StageResult, sel selection) {
	p.header(fmt.Sprintf(" Stage %d (%s) ", s.ID, s.Name), '=')
	switch s.Kind {
	case record.StageVideo:
		p.header(" Video Result ", '=')
		p.distIfAny("Video Generation", "VIDEO_GENERATION", " (ms)", s.GenTime)
		return
	case record.StageImage:
		p.header(" Image Result ", '=')
		p.intRow("Total images generated:", int64(s.Images))
		// No Stage Timing: it would repeat the generation time.
		p.distIfAny("Image Generation", "IMAGE_GENERATION", " (ms)", s.GenTime)
		return
	}
	p.distIfAny("Stage Timing", "stage_gen_time", " (ms)", s.GenTime)
	p.distIfAny("Stage Postprocess", "postprocess", " (ms)", s.Postprocess)
	switch s.Kind {
	case record.StageText:
		p.header(" Text Result ", '=')
		p.intRow("Stage generated tokens:", int64(s.Tokens))
		if sel.has("ttft") {
			p.distIfAny("Serving Time to First Token", "Serving TTFT", " (ms)", s.ServingTTFT)
			p.distIfAny("Time to First Token", "TTFT", " (ms)", s.TTFT)
		}
		if sel.has("tpot", "tpop") {
			p.distIfAny("Time per Output Token (excl. 1st token)", "TPOT", " (ms)", s.TPOT)
		}
		if sel.has("itl") {
			p.distIfAny("Inter-token Latency", "ITL", " (ms)", s.ITL)
		}
	case record.StageAudio:
		p.header(" Audio Result ", '=')
		p.floatRow("Stage audio duration generated(s):", s.AudioDuration)
		p.intRow("Stage audio frames generated:", s.AudioFrames)
		if sel.has("audio_ttfp") {
			p.distIfAny("Serving Time to First Packet", "Serving AUDIO_TTFP", " (ms)", s.ServingTTFP)
		}
		// Only a server-reported RTF is shown; stage_gen_time/duration would not compare
		// with the end-to-end RTF (#4794).
		if sel.has("audio_rtf") {
			p.distIfAny("Real Time Factor", "AUDIO_RTF", "", s.AudioRTF)
		}
		if sel.has("audio_duration") {
			p.distIfAny("Audio Duration", "AUDIO_DURATION", "", s.AudioDurations)
			if s.AudioDurations.N == 0 && s.MissingAudioDuration > 0 {
				p.row("AUDIO_DURATION skipped:", "missing stage-local audio duration/sample rate")
			}
		}
	case record.StageStream:
		p.header(" Internal Stream Result ", '=')
		if sel.has("ttfc") {
			p.distIfAny("Serving Time to First Chunk", "Serving TTFC", " (ms)", s.TTFC)
		}
		if sel.has("tpoc", "tpop") {
			p.distIfAny("Time per Output Chunk (excl. 1st chunk)", "TPOP", " (ms)", s.TPOP)
		}
		if sel.has("icl") {
			p.distIfAny("Inter-chunk Latency", "ICL", " (ms)", s.ICL)
		}
	}
}

package report

// hasVideo reports whether the run generated video, the reference's condition for its
// Video Result section.
func (r *Result) hasVideo() bool { return r.VideoTotalDuration > 0 || r.VideoTotalFrames > 0 }

// video prints latest upstream's Video Result section: its totals, then the VIDEO_RTF
// and VIDEO_GENERATION blocks, each only when its mean is above 0. Unlike the global
// Image Generation block, latest upstream put spaces around these titles.
func (p *printer) video(r *Result) {
	p.header(" Video Result ", '=')
	p.floatRow("Total video duration generated(s):", r.VideoTotalDuration)
	p.intRow("Total video frames generated:", r.VideoTotalFrames)
	p.floatRow("Video throughput(video duration/s):", r.VideoThroughput)
	if r.VideoRTF.Mean > 0 {
		p.dist(" Video RTF ", "VIDEO_RTF", "", r.VideoRTF)
	}
	if r.VideoGeneration.Mean > 0 {
		p.dist(" Video Generation ", "VIDEO_GENERATION", " (ms)", r.VideoGeneration)
	}
}

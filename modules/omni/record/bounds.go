package record

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// Limits bound what one response may make the builder hold, so a server's stream can
// never size the client's memory. Zero fields are unlimited.
type Limits struct {
	Text   int   // text bytes kept for the script (and sentence texts); the rest is measured, not kept
	Kept   int64 // audio sample and image bytes kept for the script
	Chunks int   // chunks of all modalities, and sentences; one more fails the request
}

// Bounds on what a server may claim, whatever the limits.
const (
	// MaxImageSide bounds an image's width and height as its header claims them, so the
	// pixels of a run cannot wrap.
	MaxImageSide = 1 << 16
	// MaxStageValue bounds the size of a stage's numbers (30,000 years in ms, past any
	// epoch timestamp): sums of larger ones reach +Inf, which the JSON outputs cannot hold.
	MaxStageValue = 1e15
	// MaxTokens bounds a token count: no model emits more in one response, and sums of
	// counts past it could wrap the run's totals.
	MaxTokens = 1<<31 - 1
	// MaxStages bounds the stages, and the stage_durations keys, of one response: a
	// pipeline has a handful, and a server inventing ids must not grow a record.
	MaxStages = 64
	// MaxStageEntries bounds the entries of all stage lists of one response (512 KiB):
	// a stage's inter-output latencies are one per output chunk.
	MaxStageEntries = 1 << 16
	// maxMessage bounds a failure or anomaly message: a hint, not a copy of the body.
	maxMessage = 512
)

// SetLimits bounds what the builder holds for this response.
func (b *Builder) SetLimits(l Limits) { b.limits = l }

// chunkRoom reports whether one more chunk (or sentence) fits under Limits.Chunks,
// failing the request when it does not: the reader then stops.
func (b *Builder) chunkRoom() bool {
	l := b.limits.Chunks
	if l <= 0 || len(b.r.TextChunks)+len(b.r.AudioChunks)+len(b.r.ImageTimes)+len(b.r.Utterances) < l {
		return true
	}
	b.Fail(KindOversized, fmt.Sprintf("more than %d chunks in one response (options.omni.maxChunks)", l))
	return false
}

// keep reports whether p more payload bytes fit beside kept under Limits.Kept, counting
// them as cut when they do not.
func (b *Builder) keep(kept int64, p int) bool {
	if l := b.limits.Kept; l > 0 && kept+int64(p) > l {
		b.cutPayload += int64(p)
		return false
	}
	return true
}

// keepText is the part of text that fits beside held bytes under Limits.Text, cut at a
// rune; the rest counts as cut.
func (b *Builder) keepText(held int, text []byte) []byte {
	l := b.limits.Text
	if l <= 0 || held+len(text) <= l {
		return text
	}
	n := max(l-held, 0)
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	b.cutText += int64(len(text) - n)
	return text[:n]
}

// said is a message as a record keeps it: at most maxMessage bytes, and no credential,
// neither one the request sent nor one in a URL. The cut before redacting bounds its
// cost; a secret across that cut ends past maxMessage and goes with the second.
func (b *Builder) said(msg string) string {
	return Cut(httpdebug.RedactValues(httpdebug.RedactText(Cut(msg, 8*maxMessage)), b.secrets), maxMessage)
}

// Cut is s at most n bytes, cut at a rune and marked: how a message a server wrote is
// kept.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// tokens is a count bounded by MaxTokens, flagged when it was not.
func (b *Builder) tokens(name string, n int) int {
	if n <= MaxTokens {
		return n
	}
	b.Flag(AnomalyUsageRange, fmt.Sprintf("%s %d is past any model's output; counted as %d", name, n, MaxTokens))
	return MaxTokens
}

// flagStagesCut flags a response naming more than MaxStages of something.
func (b *Builder) flagStagesCut() {
	b.Flag(AnomalyStagesCut, fmt.Sprintf("more than %d stages, stage durations or stream edges in one response; the rest were not kept", MaxStages))
}

// mergeBounded copies src into dst, adding at most MaxStages keys in all.
func mergeBounded[V any](b *Builder, dst, src map[string]V) {
	for k, v := range src {
		if _, ok := dst[k]; !ok && len(dst) >= MaxStages {
			b.flagStagesCut()
			continue
		}
		dst[k] = v
	}
}

// negativeMeans are the key endings of stage numbers that cannot be negative: times,
// durations, counts, ratios, sizes (an id may be -1).
var negativeMeans = []string{"_ms", "_s", "_count", "_tokens", "_rtf", "_mb"}

// badValue reports a stage number no server can mean: not finite, past MaxStageValue,
// or negative where it is a time, a duration, a count or a ratio.
func badValue(key string, v float64) bool {
	if math.IsNaN(v) || math.Abs(v) > MaxStageValue {
		return true
	}
	if v >= 0 {
		return false
	}
	for _, suffix := range negativeMeans {
		if strings.HasSuffix(key, suffix) {
			return true
		}
	}
	return false
}

// withinEntries is stages with their lists cut so that all the response's stages hold at
// most MaxStageEntries entries, flagged when it cuts. It counts lengths only: vLLM-Omni
// repeats every stage on each chunk, which the decoder hands back unparsed. The map and
// the stages are copied only when something is cut: they are the decoder's.
func (b *Builder) withinEntries(stages map[string]chunk.Stage) map[string]chunk.Stage {
	room := MaxStageEntries
	for id, st := range b.r.Stages {
		if _, replaced := stages[id]; !replaced {
			room -= entries(st)
		}
	}
	out, copied := stages, false
	for id, st := range stages {
		n := entries(st)
		if n <= room {
			room -= n
			continue
		}
		b.Flag(AnomalyStagesCut, fmt.Sprintf("the stage lists of one response hold more than %d entries; the rest were not kept", MaxStageEntries))
		if !copied {
			out, copied = maps.Clone(stages), true
		}
		st.Lists = maps.Clone(st.Lists)
		for k, l := range st.Lists {
			st.Lists[k] = l[:min(len(l), max(room, 0))]
			room -= len(st.Lists[k])
		}
		out[id] = st
	}
	return out
}

func entries(s chunk.Stage) int {
	n := 0
	for _, l := range s.Lists {
		n += len(l)
	}
	return n
}

// dropBadValues takes the bad values out of the record's stages, once, when it is
// finished, flagging each stage that had some. A stage is copied only then: its maps are
// the decoder's.
func (b *Builder) dropBadValues() {
	for id, st := range b.r.Stages {
		if !hasBadValue(st) {
			continue
		}
		b.Flag(AnomalyStageValue, fmt.Sprintf("stage %.40q reported a negative time or count, or a number past %g; dropped", id, MaxStageValue))
		st.Values = maps.Clone(st.Values)
		maps.DeleteFunc(st.Values, badValue)
		lists := make(map[string][]float64, len(st.Lists))
		for k, l := range st.Lists {
			lists[k] = slices.DeleteFunc(slices.Clone(l), func(v float64) bool { return badValue(k, v) })
		}
		st.Lists = lists
		b.r.Stages[id] = st
	}
}

func hasBadValue(s chunk.Stage) bool {
	for k, v := range s.Values {
		if badValue(k, v) {
			return true
		}
	}
	for k, l := range s.Lists {
		if slices.ContainsFunc(l, func(v float64) bool { return badValue(k, v) }) {
			return true
		}
	}
	return false
}

// saneDurations is stage_durations without bad values (none of them may be negative),
// copied only when it has some.
func saneDurations(d chunk.Durations) (chunk.Durations, bool) {
	bad := func(e chunk.Duration) bool { return e.Value < 0 || badValue(e.Key, e.Value) }
	if !slices.ContainsFunc(d, bad) {
		return d, true
	}
	return slices.DeleteFunc(slices.Clone(d), bad), false
}

// mergeDurations sets each entry of d in the record's durations, a later value replacing
// an earlier one in its place, adding at most MaxStages keys in all.
func (b *Builder) mergeDurations(d chunk.Durations) {
	im := &b.r.Images
	for _, e := range d {
		i := slices.IndexFunc(im.StageDurations, func(x chunk.Duration) bool { return x.Key == e.Key })
		switch {
		case i >= 0:
			im.StageDurations[i].Value = e.Value
		case len(im.StageDurations) >= MaxStages:
			b.flagStagesCut()
		default:
			im.StageDurations = append(im.StageDurations, e)
		}
	}
}

package promwrite

import (
	"strings"
	"unicode/utf8"

	"github.com/omnik-dev/omnik/metrics"
)

// Prefix starts every series name the output sends.
const Prefix = "omnik_"

// Labels the output sets itself. A sample tag of the same name is renamed tag_<name>
// (see labelName), except testid, which a tag may set.
const (
	LabelTestID = "testid"
	// LabelOutcome splits a Rate's counter: "true" counts the non-zero samples (a check
	// that passed, a request that failed), "false" the others.
	LabelOutcome = "outcome"
	labelLE      = "le"
)

// family is how one metric is named and sent.
type family struct {
	name   string // the series name: omnik_ttft_seconds; a classic trend adds _bucket, _sum, _count
	kind   metrics.Kind
	div    float64   // values are divided by it: 1000 turns milliseconds into seconds (and 30 ms into exactly 0.03)
	bounds []float64 // the classic bucket layout of a Trend
}

// familyOf names m by Prometheus's conventions: the base unit as a suffix (_seconds for
// Time, whose values are milliseconds; _bytes for Data), _total on counters.
func familyOf(m *metrics.Metric) family {
	f := family{name: Prefix + m.Name, kind: m.Kind, div: 1}
	suffix := ""
	switch m.Contains {
	case metrics.Time:
		suffix, f.div = "_seconds", 1000
	case metrics.Data:
		suffix = "_bytes"
	}
	if suffix != "" && !strings.HasSuffix(f.name, suffix) {
		f.name += suffix
	}
	switch m.Kind {
	case metrics.Counter, metrics.Rate:
		if !strings.HasSuffix(f.name, "_total") {
			f.name += "_total"
		}
	case metrics.Trend:
		f.bounds = layoutFor(m)
	}
	return f
}

// SeriesNames are every series name that m's samples may become, in either histogram
// mode: what a dashboard may query.
func SeriesNames(m *metrics.Metric) []string {
	f := familyOf(m)
	if m.Kind == metrics.Trend {
		return []string{f.name, f.name + "_bucket", f.name + "_sum", f.name + "_count"}
	}
	return []string{f.name}
}

// SelfSeriesNames are the output's own counters, sent with every push.
func SelfSeriesNames() []string {
	return []string{selfDropped, selfPushes, selfPushesFailed, selfPushesSkipped}
}

// The output's own series: what it dropped, so a dashboard shows a gap for what it is.
const (
	selfDropped       = Prefix + "remote_write_dropped_samples_total" // {reason="buffer_full"|"series_cap"}
	selfPushes        = Prefix + "remote_write_pushes_total"
	selfPushesFailed  = Prefix + "remote_write_pushes_failed_total"
	selfPushesSkipped = Prefix + "remote_write_pushes_skipped_total"
)

// reserved are label names the output sets on some series; a tag of that name would
// clash with them.
var reserved = map[string]bool{labelLE: true, LabelOutcome: true}

// labelName turns a tag key into a valid label name ([a-zA-Z_][a-zA-Z0-9_]*): every
// other character becomes _, a leading digit gets a _ in front, and the names Prometheus
// reserves ("__" prefix) or the output sets (le, outcome) get tag_ in front. "" means
// the tag is left out (an empty key).
func labelName(key string) string {
	if key == "" {
		return ""
	}
	var b strings.Builder
	for i, r := range key {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
			b.WriteRune(r)
		case '0' <= r && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	n := b.String()
	if strings.HasPrefix(n, "__") || reserved[n] {
		n = "tag_" + n
	}
	return n
}

// labelValue is v as valid UTF-8.
func labelValue(v string) string {
	if utf8.ValidString(v) {
		return v
	}
	return strings.ToValidUTF8(v, "\uFFFD")
}

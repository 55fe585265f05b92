package servermetrics

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Family types, as the page's TYPE lines say them.
const (
	typeCounter   = "counter"
	typeGauge     = "gauge"
	typeHistogram = "histogram"
	typeSummary   = "summary"
	typeUntyped   = "untyped"
)

// Parts of a histogram or summary, each its own scalar series as Prometheus stores them.
const (
	partValue  = ""
	partBucket = "bucket"
	partSum    = "sum"
	partCount  = "count"
)

// Series is one scalar series of a page: a gauge or counter, or one bucket, sum or count
// of a histogram (summaries keep their sum and count).
type Series struct {
	Family string  `json:"family"` // canonical (names.go)
	Type   string  `json:"type"`
	Part   string  `json:"part,omitempty"`
	Labels []Label `json:"labels,omitempty"` // sorted by name; le is not one of them
	LE     float64 `json:"-"`                // a bucket's upper bound
	key    string
}

// Label is one label pair.
type Label struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Key identifies the series on every page.
func (s *Series) Key() string {
	if s.key == "" {
		var b strings.Builder
		b.WriteString(s.Family)
		b.WriteByte('|')
		b.WriteString(s.Part)
		b.WriteByte('|')
		b.WriteString(labelKey(s.Labels))
		if s.Part == partBucket {
			b.WriteByte('|')
			b.WriteString(strconv.FormatFloat(s.LE, 'g', -1, 64))
		}
		s.key = b.String()
	}
	return s.key
}

func labelKey(ls []Label) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.Name)
		b.WriteByte('=')
		b.WriteString(strconv.Quote(l.Value))
	}
	return b.String()
}

// label returns the value of a label, "" when absent.
func (s *Series) label(name string) string {
	for _, l := range s.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// matches reports whether the series carries every pair of sel.
func (s *Series) matches(sel map[string]string) bool {
	for k, v := range sel {
		if s.label(k) != v {
			return false
		}
	}
	return true
}

// Point is one series' value on one page.
type Point struct {
	Series *Series
	Value  float64
}

// Bounds of one series' names: a page's memory is its series times these, whatever a
// hostile server sends. A series past them is left out and counted.
const (
	maxNameBytes  = 256
	maxLabelBytes = 256
	maxLabels     = 16
)

// Parse reads a Prometheus text page (format 0.0.4) into its scalar points, keeping the
// families keep accepts. Points with a non-finite value other than a bucket's +Inf bound
// are dropped: they cannot be summed. refused counts the series left out for their size.
func Parse(page []byte, keep func(family string) bool) (points []Point, refused int, err error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(page))
	if err != nil {
		return nil, 0, fmt.Errorf("malformed page: %w", err)
	}
	names := make([]string, 0, len(fams))
	for name := range fams {
		if keep(canonical(name)) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if len(name) > maxNameBytes {
			refused += len(fams[name].GetMetric())
			continue
		}
		var n int
		points, n = appendFamily(points, fams[name])
		refused += n
	}
	return points, refused, nil
}

func appendFamily(out []Point, f *dto.MetricFamily) ([]Point, int) {
	family := canonical(f.GetName())
	typ := typeName(f.GetType())
	refused := 0
	for _, m := range f.GetMetric() {
		if !bounded(m.GetLabel()) {
			refused++
			continue
		}
		labels := make([]Label, 0, len(m.GetLabel()))
		for _, lp := range m.GetLabel() {
			labels = append(labels, Label{lp.GetName(), lp.GetValue()})
		}
		sort.Slice(labels, func(i, j int) bool { return labels[i].Name < labels[j].Name })
		add := func(part string, le, v float64) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				out = append(out, Point{&Series{Family: family, Type: typ, Part: part, Labels: labels, LE: le}, v})
			}
		}
		switch typ {
		case typeCounter:
			add(partValue, 0, m.GetCounter().GetValue())
		case typeGauge:
			add(partValue, 0, m.GetGauge().GetValue())
		case typeUntyped:
			add(partValue, 0, m.GetUntyped().GetValue())
		case typeHistogram:
			h := m.GetHistogram()
			for _, b := range h.GetBucket() {
				add(partBucket, b.GetUpperBound(), float64(b.GetCumulativeCount()))
			}
			add(partSum, 0, h.GetSampleSum())
			add(partCount, 0, float64(h.GetSampleCount()))
		case typeSummary:
			s := m.GetSummary()
			add(partSum, 0, s.GetSampleSum())
			add(partCount, 0, float64(s.GetSampleCount()))
		}
	}
	return out, refused
}

func bounded(labels []*dto.LabelPair) bool {
	if len(labels) > maxLabels {
		return false
	}
	for _, l := range labels {
		if len(l.GetName()) > maxLabelBytes || len(l.GetValue()) > maxLabelBytes {
			return false
		}
	}
	return true
}

func typeName(t dto.MetricType) string {
	switch t {
	case dto.MetricType_COUNTER:
		return typeCounter
	case dto.MetricType_GAUGE:
		return typeGauge
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		return typeHistogram
	case dto.MetricType_SUMMARY:
		return typeSummary
	}
	return typeUntyped
}

package mock

// The Prometheus text exposition format 0.0.4, written by hand: the
// simulator imports only the standard library and gorilla/websocket.

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// handleMetrics serves GET /metrics: gauges from the requests in flight
// now, counters and histograms accumulated since the server started.
func (s *Server) handleMetrics(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	s.writeMetrics(&b, time.Now())
	w.Header().Set("Content-Type", metricsContentType)
	_, _ = w.Write(b.Bytes())
}

// writeMetrics renders the page as of now.
func (s *Server) writeMetrics(b *bytes.Buffer, now time.Time) {
	m := s.metrics
	live := s.sched.inFlight()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setGauges(live, now)
	var scratch []uint64
	for _, f := range m.families {
		scratch = writeFamily(b, f, scratch)
	}
}

// writeFamily writes HELP, TYPE and every series shown; a family with none
// still gets its HELP and TYPE, as prometheus_client writes them.
func writeFamily(b *bytes.Buffer, f *family, scratch []uint64) []uint64 {
	b.WriteString("# HELP " + f.name + " " + helpEscaper.Replace(f.help) + "\n")
	b.WriteString("# TYPE " + f.name + " " + f.typ + "\n")
	for _, s := range f.series {
		if !s.shown() {
			continue
		}
		var n uint64
		var v float64
		n, v, scratch = s.snapshot(scratch)
		if f.typ != typeHistogram {
			writeSample(b, f.name, f.labels, s.values, "", v)
			continue
		}
		var cum uint64
		for i, le := range f.bounds {
			cum += scratch[i]
			writeSample(b, f.name+"_bucket", f.labels, s.values, formatFloat(le), float64(cum))
		}
		writeSample(b, f.name+"_bucket", f.labels, s.values, "+Inf", float64(n))
		writeSample(b, f.name+"_sum", f.labels, s.values, "", v)
		writeSample(b, f.name+"_count", f.labels, s.values, "", float64(n))
	}
	return scratch
}

// writeSample writes `name{label="value",...,le="bound"} v`; le is left
// out when empty.
func writeSample(b *bytes.Buffer, name string, labels, values []string, le string, v float64) {
	b.WriteString(name)
	if len(labels) > 0 || le != "" {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l + `="` + labelEscaper.Replace(values[i]) + `"`)
		}
		if le != "" {
			if len(labels) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`le="` + le + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(formatFloat(v))
	b.WriteByte('\n')
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

// formatFloat writes a value as Prometheus does: +Inf, -Inf and NaN by
// name, whole numbers without exponent or fraction (a frame count stays
// 7453260, a bound 1), anything else in the shortest form that reads back
// to the same float64.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	case v == 0:
		return "0" // and not "-0"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

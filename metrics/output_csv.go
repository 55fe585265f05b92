package metrics

import (
	"bytes"
	"encoding/csv"
	"net/url"
	"strconv"
	"time"
)

// csvHeader is fixed so a file can be streamed without knowing every tag in advance:
// tags and metadata are each one column in URL query form ("k=v&k2=v2", keys sorted;
// url.ParseQuery reads them back). timestamp is RFC 3339 with nanoseconds.
var csvHeader = []string{"metric_name", "timestamp", "metric_value", "tags", "metadata"}

// csvEncoder writes every metric point, those derived from records included; entries
// have no CSV form and are left out (their numbers are the derived points).
type csvEncoder struct {
	w   *csv.Writer
	row []string
}

func (e *csvEncoder) header(buf *bytes.Buffer) {
	e.w = csv.NewWriter(buf)
	e.row = make([]string, len(csvHeader))
	_ = e.w.Write(csvHeader)
	e.w.Flush()
}

func (e *csvEncoder) samples(buf *bytes.Buffer, ss []Sample) {
	for i := range ss {
		s := &ss[i]
		if s.Metric == nil {
			continue
		}
		e.row[0] = s.Metric.Name
		e.row[1] = s.Time.UTC().Format(time.RFC3339Nano)
		e.row[2] = strconv.FormatFloat(s.Value, 'g', -1, 64)
		e.row[3] = encodeQuery(s.Tags.Map())
		e.row[4] = encodeQuery(s.Metadata)
		// Writing to a bytes.Buffer cannot fail.
		_ = e.w.Write(e.row)
	}
	e.w.Flush()
}

func (e *csvEncoder) writes(k itemKind) bool { return k != entryItems }

func (e *csvEncoder) entry(*bytes.Buffer, Entry) error { return nil }

func encodeQuery(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	v := make(url.Values, len(m))
	for k, s := range m {
		v.Set(k, s)
	}
	return v.Encode()
}

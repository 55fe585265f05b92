package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// jsonEncoder writes NDJSON, one object a line:
//
//	{"type":"Run","data":{…}}
//	{"type":"Metric","metric":"iterations","data":{"name":"iterations","type":"counter","contains":"default"}}
//	{"type":"Point","metric":"iterations","data":{"time":"…","value":1,"tags":{…},"metadata":{…}}}
//	{"type":"Record","data":{…}}
//	{"type":"End","data":{…}}
//
// A Metric line precedes a metric's first Point. Samples derived from records are not
// written: the Record lines carry them, and a reader derives them again. Times are
// RFC 3339 with nanoseconds; a non-finite value is written as null. ReadResults reads it.
type jsonEncoder struct {
	seen map[*Metric]bool
}

func (e *jsonEncoder) header(*bytes.Buffer) {}

func (e *jsonEncoder) samples(buf *bytes.Buffer, ss []Sample) {
	if e.seen == nil {
		e.seen = map[*Metric]bool{}
	}
	var scratch [64]byte
	for i := range ss {
		s := &ss[i]
		if s.Metric == nil {
			continue
		}
		if !e.seen[s.Metric] {
			e.seen[s.Metric] = true
			buf.WriteString(`{"type":"Metric","metric":`)
			writeJSONString(buf, s.Metric.Name)
			buf.WriteString(`,"data":{"name":`)
			writeJSONString(buf, s.Metric.Name)
			buf.WriteString(`,"type":"` + s.Metric.Kind.String() + `","contains":"` + s.Metric.Contains.String() + "\"}}\n")
		}
		buf.WriteString(`{"type":"Point","metric":`)
		writeJSONString(buf, s.Metric.Name)
		buf.WriteString(`,"data":{"time":"`)
		buf.Write(s.Time.UTC().AppendFormat(scratch[:0], time.RFC3339Nano))
		buf.WriteString(`","value":`)
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			buf.WriteString("null")
		} else {
			buf.Write(strconv.AppendFloat(scratch[:0], s.Value, 'g', -1, 64))
		}
		buf.WriteString(`,"tags":`)
		writeJSONTags(buf, s.Tags.List())
		if len(s.Metadata) > 0 {
			buf.WriteString(`,"metadata":`)
			// encoding/json sorts map keys, so lines are deterministic.
			b, _ := json.Marshal(s.Metadata)
			buf.Write(b)
		}
		buf.WriteString("}}\n")
	}
}

func (e *jsonEncoder) writes(k itemKind) bool { return k != derivedItems }

func (e *jsonEncoder) entry(buf *bytes.Buffer, en Entry) error {
	b, err := json.Marshal(en.Data)
	if err != nil {
		return fmt.Errorf("%s entry: %w", en.Type, err)
	}
	buf.WriteString(`{"type":`)
	writeJSONString(buf, en.Type)
	buf.WriteString(`,"data":`)
	buf.Write(b)
	buf.WriteString("}\n")
	return nil
}

func writeJSONTags(buf *bytes.Buffer, tags []Tag) {
	buf.WriteByte('{')
	for i, t := range tags {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSONString(buf, t.Key)
		buf.WriteByte(':')
		writeJSONString(buf, t.Value)
	}
	buf.WriteByte('}')
}

// writeJSONString copies plain ASCII directly and leaves escaping to encoding/json.
func writeJSONString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			buf.Write(b)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

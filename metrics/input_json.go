package metrics

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// ResultHandler receives what ReadResults reads, in file order.
type ResultHandler interface {
	// Samples gets consecutive Point lines as samples; the handler keeps the slice.
	Samples(batch []Sample)
	// Entry gets every other line by type ("Run", "Record", "End", or a type a newer
	// omnik added) with its raw data. An error stops the read and is returned.
	Entry(typ string, data json.RawMessage) error
}

// ReadStats says what ReadResults skipped.
type ReadStats struct {
	Lines int // lines read, empty ones excluded
	// Bad counts lines that are not result lines (not JSON, a Point of a metric no
	// Metric line declared, a Metric that contradicts an earlier one); FirstBad is the
	// line number and reason of the first.
	Bad      int
	FirstBad string
	// Truncated is set when the file ends in the middle of a line or of its gzip stream,
	// as the file of a killed run does: what came before was read.
	Truncated bool
}

// ErrNotResults is returned for input whose first line is not a result line.
var ErrNotResults = errors.New("not an omnik result file")

var errNotFirst = fmt.Errorf("%w: line 1 is not a {\"type\":…,\"data\":…} line (omnik run --out json=FILE writes one)", ErrNotResults)

// MaxResultLine bounds one line of a result file (a record of a very long stream); a
// longer line is counted as bad and skipped, so a hostile file cannot exhaust memory.
const MaxResultLine = 64 << 20

const pointBatch = 512

// ReadResults reads an NDJSON result file written by the json output, gzip-compressed
// or not; several files concatenated read as one. Metric lines register their metric in
// reg; Point lines become samples; every other line goes to h.Entry. Bad lines are
// counted and skipped, never fatal; only input whose first line is not a result line
// fails, with ErrNotResults, and so does empty input.
func ReadResults(r io.Reader, reg *Registry, h ResultHandler) (ReadStats, error) {
	return readResults(r, reg, h, MaxResultLine)
}

func readResults(r io.Reader, reg *Registry, h ResultHandler, maxLine int) (ReadStats, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return ReadStats{}, fmt.Errorf("%w: broken gzip header: %v", ErrNotResults, err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	rd := &resultReader{in: br, reg: reg, h: h, metrics: map[string]*Metric{}, maxLine: maxLine}
	err := rd.run()
	if err == nil && rd.stats.Lines == 0 {
		err = fmt.Errorf("%w: it is empty", ErrNotResults)
	}
	return rd.stats, err
}

type resultReader struct {
	in      *bufio.Reader
	reg     *Registry
	h       ResultHandler
	metrics map[string]*Metric // declared by Metric lines
	batch   []Sample
	stats   ReadStats
	lineNo  int
	maxLine int
}

type resultLine struct {
	Type   string          `json:"type"`
	Metric string          `json:"metric"`
	Data   json.RawMessage `json:"data"`
}

type pointData struct {
	Time     time.Time         `json:"time"`
	Value    *float64          `json:"value"`
	Tags     map[string]string `json:"tags"`
	Metadata map[string]string `json:"metadata"`
}

type metricData struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Contains string `json:"contains"`
}

func (rd *resultReader) run() error {
	for {
		line, complete, err := rd.next()
		if len(bytes.TrimSpace(line)) > 0 {
			rd.lineNo++
			rd.stats.Lines++
			if perr := rd.line(line, complete); perr != nil {
				return perr
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			rd.flush()
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum):
			rd.stats.Truncated = true
			rd.flush()
			return nil
		case err != nil:
			rd.flush()
			return err
		}
	}
}

// next reads one line without its newline; complete is false when the input ended
// before the newline. A line past MaxResultLine is drained and returned empty, counted.
func (rd *resultReader) next() (line []byte, complete bool, err error) {
	var buf []byte
	for {
		chunk, err := rd.in.ReadSlice('\n')
		if len(buf)+len(chunk) > rd.maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = rd.in.ReadSlice('\n')
			}
			rd.lineNo++
			rd.stats.Lines++
			if rd.lineNo == 1 {
				return nil, false, errNotFirst
			}
			rd.bad(fmt.Sprintf("longer than %d bytes", rd.maxLine))
			return nil, err == nil, err
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return buf, false, err
	}
}

func (rd *resultReader) bad(reason string) {
	if rd.stats.Bad == 0 {
		rd.stats.FirstBad = fmt.Sprintf("line %d: %s", rd.lineNo, reason)
	}
	rd.stats.Bad++
}

func (rd *resultReader) line(b []byte, complete bool) error {
	var l resultLine
	var err error
	if typ, data, ok := entryLine(b); ok {
		l.Type, l.Data = typ, data
	} else {
		err = json.Unmarshal(b, &l)
	}
	switch {
	case rd.lineNo == 1 && (err != nil || l.Type == ""):
		return errNotFirst
	case err != nil && !complete:
		rd.stats.Truncated = true
		return nil
	case err != nil:
		rd.bad("not JSON")
		return nil
	}
	switch l.Type {
	case "Metric":
		rd.declare(l.Data)
	case "Point":
		rd.point(l.Metric, l.Data)
	default:
		rd.flush()
		return rd.h.Entry(l.Type, l.Data)
	}
	return nil
}

// The two keys of an entry line as the json output writes them, and sorted.
var (
	typeFirst, dataAfterType = []byte(`{"type":"`), []byte(`","data":`)
	dataFirst, typeAfterData = []byte(`{"data":`), []byte(`,"type":"`)
)

// entryLine splits a line of exactly a type and a data key, {"type":"T","data":D} as the
// json output writes Run, Record and End entries, or {"data":D,"type":"T"}, so that D is
// scanned once rather than decoded into a copy, then decoded again. ok is false for any
// other line, which json.Unmarshal reads instead: T must be plain printable ASCII, and
// D one JSON value without surrounding space, so the line is that object and decodes
// to what entryLine returns.
func entryLine(b []byte) (typ string, data []byte, ok bool) {
	var t []byte
	switch {
	case bytes.HasPrefix(b, typeFirst):
		rest := b[len(typeFirst):]
		end := bytes.IndexByte(rest, '"')
		if end < 0 || !bytes.HasPrefix(rest[end:], dataAfterType) || !bytes.HasSuffix(rest, []byte("}")) {
			return "", nil, false
		}
		t, data = rest[:end], rest[end+len(dataAfterType):len(rest)-1]
	case bytes.HasPrefix(b, dataFirst) && bytes.HasSuffix(b, []byte(`"}`)):
		rest := b[len(dataFirst) : len(b)-2]
		start := bytes.LastIndexByte(rest, '"')
		if start < 0 || !bytes.HasSuffix(rest[:start+1], typeAfterData) {
			return "", nil, false
		}
		t, data = rest[start+1:], rest[:start+1-len(typeAfterData)]
	default:
		return "", nil, false
	}
	for _, c := range t {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", nil, false
		}
	}
	if len(data) == 0 || isJSONSpace(data[0]) || isJSONSpace(data[len(data)-1]) || !json.Valid(data) {
		return "", nil, false
	}
	return string(t), data, true
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (rd *resultReader) declare(data json.RawMessage) {
	var d metricData
	if err := json.Unmarshal(data, &d); err != nil {
		rd.bad("Metric: " + err.Error())
		return
	}
	kind, contains, err := ParseKind(d.Type, d.Contains)
	if err != nil {
		rd.bad(fmt.Sprintf("Metric %q: %v", d.Name, err))
		return
	}
	m, err := rd.reg.New(d.Name, kind, contains)
	if err != nil {
		rd.bad("Metric: " + err.Error())
		return
	}
	rd.metrics[d.Name] = m
}

func (rd *resultReader) point(name string, data json.RawMessage) {
	m := rd.metrics[name]
	if m == nil {
		rd.bad(fmt.Sprintf("Point of %q before its Metric line", name))
		return
	}
	var p pointData
	if err := json.Unmarshal(data, &p); err != nil || p.Value == nil {
		rd.bad(fmt.Sprintf("Point of %q: no time or value", name))
		return
	}
	rd.batch = append(rd.batch, Sample{Metric: m, Tags: NewTagSet(p.Tags), Time: p.Time, Value: *p.Value, Metadata: p.Metadata})
	if len(rd.batch) >= pointBatch {
		rd.flush()
	}
}

func (rd *resultReader) flush() {
	if len(rd.batch) > 0 {
		rd.h.Samples(rd.batch)
		rd.batch = nil
	}
}

// ParseKind reads a metric's kind and value type as Kind.String and ValueType.String
// spell them.
func ParseKind(kind, contains string) (Kind, ValueType, error) {
	for k, name := range kindNames {
		// No sample of an External metric is ever written: one declared is damage.
		if name != kind || k == External {
			continue
		}
		for v, vname := range valueTypeNames {
			if vname == contains {
				return k, v, nil
			}
		}
		return 0, 0, fmt.Errorf("unknown value type %q", contains)
	}
	return 0, 0, fmt.Errorf("unknown metric type %q", kind)
}

package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseThresholds reads every threshold of a run: raw is options.thresholds as JSON —
// the k6 object {"metric{k:v}": ["p(99) < 900", {"threshold": …, "abortOnFail": …,
// "delayAbortEval": "10s"}]}, an array of short expressions ["ttfc.p99 < 900", …] (or
// objects with a short "threshold"), null or empty — and cli holds --threshold values in
// the short form. lookup returns the metric of a name or nil (Registry.Get). Every
// problem is reported, joined; each is a *ThresholdError.
func ParseThresholds(raw json.RawMessage, cli []string, lookup func(name string) *Metric) ([]*Threshold, error) {
	var out []*Threshold
	var errs []error
	keep := func(th *Threshold, err error) {
		if err != nil {
			errs = append(errs, err)
		} else {
			out = append(out, th)
		}
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '[':
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, &ThresholdError{Expr: "thresholds", Col: 1, Reason: "not a list of expressions: " + err.Error()}
		}
		for _, item := range list {
			expr, abort, delay, err := decodeItem(item, "")
			if err != nil {
				errs = append(errs, err)
				continue
			}
			keep(parseShort(expr, abort, delay, lookup))
		}
	case raw[0] == '{':
		entries, err := decodeObject(raw)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			ths, err := parseEntry(e.key, e.value, lookup)
			out = append(out, ths...)
			errs = append(errs, err)
		}
	default:
		return nil, &ThresholdError{Expr: "thresholds", Col: 1, Reason: "want an object or a list of expressions"}
	}
	for _, c := range cli {
		keep(parseShort(c, false, 0, lookup))
	}
	return out, errors.Join(errs...)
}

type objectEntry struct {
	key   string
	value json.RawMessage
}

// decodeObject keeps key order for stable reports and, like a JS object, lets the last
// of two equal keys win.
func decodeObject(raw []byte) ([]objectEntry, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &ThresholdError{Expr: "thresholds", Col: 1, Reason: "not an object of metric: expressions: " + err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	_, _ = dec.Token() // '{', validated above
	var entries []objectEntry
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var skip json.RawMessage
		_ = dec.Decode(&skip)
		if v, ok := m[key]; ok {
			entries = append(entries, objectEntry{key, v})
			delete(m, key)
		}
	}
	return entries, nil
}

func parseEntry(key string, value json.RawMessage, lookup func(string) *Metric) ([]*Threshold, error) {
	m, sel, err := parseKey(key, lookup)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(value), []byte("[")) {
		if err := json.Unmarshal(value, &items); err != nil {
			return nil, &ThresholdError{Expr: key, Col: 1, Reason: "want a list of expressions: " + err.Error()}
		}
	} else {
		items = []json.RawMessage{value}
	}
	var out []*Threshold
	var errs []error
	for _, item := range items {
		expr, abort, delay, err := decodeItem(item, key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sc := &scanner{s: expr, metric: key}
		st, col, op, v, err := sc.expression()
		if err == nil {
			err = checkStat(m, st, expr, key, col)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, &Threshold{Source: expr, Metric: m, Selector: sel, Stat: st, Op: op, Value: v,
			AbortOnFail: abort, DelayAbortEval: delay})
	}
	return out, errors.Join(errs...)
}

// decodeItem reads "expr" or {"threshold": "expr", "abortOnFail": b, "delayAbortEval": d}.
func decodeItem(item json.RawMessage, key string) (expr string, abort bool, delay time.Duration, err error) {
	if json.Unmarshal(item, &expr) == nil {
		return expr, false, 0, nil
	}
	var obj struct {
		Threshold      *string         `json:"threshold"`
		AbortOnFail    bool            `json:"abortOnFail"`
		DelayAbortEval json.RawMessage `json:"delayAbortEval"`
	}
	dec := json.NewDecoder(bytes.NewReader(item))
	dec.DisallowUnknownFields()
	if e := dec.Decode(&obj); e != nil || obj.Threshold == nil {
		reason := "want an expression or {threshold, abortOnFail, delayAbortEval}"
		if e != nil {
			reason += ": " + e.Error()
		}
		return "", false, 0, &ThresholdError{Expr: string(item), Metric: key, Col: 1, Reason: reason}
	}
	delay, err = parseDelay(obj.DelayAbortEval)
	if err != nil {
		return "", false, 0, &ThresholdError{Expr: *obj.Threshold, Metric: key, Col: 1, Reason: err.Error()}
	}
	return *obj.Threshold, obj.AbortOnFail, delay, nil
}

// parseDelay accepts a Go duration string ("10s", "1m30s") or a number of milliseconds.
func parseDelay(raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var d time.Duration
	var s string
	var ms float64
	switch {
	case json.Unmarshal(raw, &s) == nil:
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("delayAbortEval %q: want a duration such as \"10s\"", s)
		}
	case json.Unmarshal(raw, &ms) == nil:
		d = time.Duration(ms * float64(time.Millisecond))
	default:
		return 0, fmt.Errorf("delayAbortEval %s: want a duration such as \"10s\"", raw)
	}
	if d < 0 {
		return 0, fmt.Errorf("delayAbortEval %s is negative", raw)
	}
	return d, nil
}

func parseKey(key string, lookup func(string) *Metric) (*Metric, *TagSet, error) {
	sc := &scanner{s: key}
	sc.space()
	name, col, err := sc.name()
	if err != nil {
		return nil, nil, err
	}
	sel, err := sc.selector()
	if err != nil {
		return nil, nil, err
	}
	if err := sc.end("the metric name"); err != nil {
		return nil, nil, err
	}
	m := lookup(name)
	if m == nil {
		return nil, nil, sc.fail(col, fmt.Sprintf("unknown metric %q", name))
	}
	return m, sel, nil
}

// parseShort reads "metric[{k:v,…}].stat op number".
func parseShort(expr string, abort bool, delay time.Duration, lookup func(string) *Metric) (*Threshold, error) {
	sc := &scanner{s: expr}
	sc.space()
	name, ncol, err := sc.name()
	if err != nil {
		return nil, err
	}
	sel, err := sc.selector()
	if err != nil {
		return nil, err
	}
	if !sc.eat(".") {
		return nil, sc.fail(sc.col(), "expected '.' and a stat after the metric name (ttfc.p99 < 900)")
	}
	st, col, op, v, err := sc.expression()
	if err != nil {
		return nil, err
	}
	m := lookup(name)
	if m == nil {
		return nil, sc.fail(ncol, fmt.Sprintf("unknown metric %q", name))
	}
	if err := checkStat(m, st, expr, "", col); err != nil {
		return nil, err
	}
	return &Threshold{Source: expr, Metric: m, Selector: sel, Stat: st, Op: op, Value: v,
		AbortOnFail: abort, DelayAbortEval: delay}, nil
}

func checkStat(m *Metric, st Stat, expr, key string, col int) error {
	if m.Kind.Supports(st) && st.Name != "passes" && st.Name != "fails" {
		return nil
	}
	return &ThresholdError{Expr: expr, Metric: key, Col: col,
		Reason: fmt.Sprintf("%s is a %s: %s is not one of its aggregations (%s)", m.Name, m.Kind, st, m.Kind.supportedStats())}
}

// scanner walks one expression; columns are 1-based.
type scanner struct {
	s      string
	i      int
	metric string
}

func (sc *scanner) col() int {
	if sc.i >= len(sc.s) {
		// Past the end: point at the last character, whose continuation is missing.
		return max(len(sc.s), 1)
	}
	return sc.i + 1
}

func (sc *scanner) fail(col int, reason string) error {
	col = min(col, max(len(sc.s), 1))
	return &ThresholdError{Expr: sc.s, Metric: sc.metric, Col: col, Reason: reason}
}

func (sc *scanner) space() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *scanner) eat(tok string) bool {
	if strings.HasPrefix(sc.s[sc.i:], tok) {
		sc.i += len(tok)
		return true
	}
	return false
}

func isLetter(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (sc *scanner) name() (string, int, error) {
	start := sc.i
	if sc.i >= len(sc.s) || !isLetter(sc.s[sc.i]) {
		return "", 0, sc.fail(sc.col(), "expected a metric name")
	}
	// Colons are for External metrics, named as Prometheus names them
	// ("server:vllm:num_requests_waiting"); no registered metric has one.
	for sc.i < len(sc.s) && (isLetter(sc.s[sc.i]) || isDigit(sc.s[sc.i]) || sc.s[sc.i] == ':') {
		sc.i++
	}
	return sc.s[start:sc.i], start + 1, nil
}

// selector reads an optional "{k:v, k2:'v2'}"; spaces and quotes around keys and values
// are trimmed.
func (sc *scanner) selector() (*TagSet, error) {
	if !sc.eat("{") {
		return nil, nil
	}
	open := sc.i
	end := strings.IndexByte(sc.s[sc.i:], '}')
	if end < 0 {
		return nil, sc.fail(open, "missing '}' after the selector")
	}
	body := sc.s[open : open+end]
	sc.i = open + end + 1
	tags := map[string]string{}
	pos := open
	for _, pair := range strings.Split(body, ",") {
		k, v, ok := strings.Cut(pair, ":")
		k, v = strings.Trim(k, " \t\"'`"), strings.Trim(v, " \t\"'`")
		if !ok || k == "" {
			return nil, sc.fail(pos+1, fmt.Sprintf("selector pair %q: want key:value", strings.TrimSpace(pair)))
		}
		tags[k] = v
		pos += len(pair) + 1
	}
	return NewTagSet(tags), nil
}

// expression reads "stat op number" to the end; col is the stat's column.
func (sc *scanner) expression() (st Stat, col int, op Op, v float64, err error) {
	sc.space()
	col = sc.col()
	if st, err = sc.stat(); err != nil {
		return
	}
	sc.space()
	if op, err = sc.op(); err != nil {
		return
	}
	sc.space()
	if v, err = sc.number(); err != nil {
		return
	}
	err = sc.end("the number")
	return
}

func (sc *scanner) stat() (Stat, error) {
	start := sc.i
	for sc.i < len(sc.s) && isLetter(sc.s[sc.i]) {
		sc.i++
	}
	word := sc.s[start:sc.i]
	if word == "p" {
		var n string
		if sc.eat("(") {
			end := strings.IndexByte(sc.s[sc.i:], ')')
			if end < 0 {
				return Stat{}, sc.fail(sc.col(), "missing ')' after the percentile")
			}
			n = sc.s[sc.i : sc.i+end]
			sc.i += end + 1
		} else {
			from := sc.i
			for sc.i < len(sc.s) && (isDigit(sc.s[sc.i]) || sc.s[sc.i] == '.') {
				sc.i++
			}
			n = sc.s[from:sc.i]
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil || !(p >= 0 && p <= 100) || strings.ContainsAny(n, "eEnNiIxX_") {
			return Stat{}, sc.fail(start+2, fmt.Sprintf("percentile %q must be a number in [0,100]", n))
		}
		return Percentile(p), nil
	}
	if !statNames[word] || word == "passes" || word == "fails" {
		return Stat{}, sc.fail(start+1, fmt.Sprintf("unknown aggregation %q: use count, rate, value, avg, min, max, med, p(N)", word))
	}
	return Stat{Name: word}, nil
}

var ops = []struct {
	tok string
	op  Op
}{{"===", OpEq}, {"==", OpEq}, {"!=", OpNE}, {"<=", OpLE}, {">=", OpGE}, {"<", OpLT}, {">", OpGT}}

func (sc *scanner) op() (Op, error) {
	for _, o := range ops {
		if sc.eat(o.tok) {
			return o.op, nil
		}
	}
	return "", sc.fail(sc.col(), "expected an operator: <, <=, >, >=, ==, ===, !=")
}

func (sc *scanner) number() (float64, error) {
	start := sc.i
	for sc.i < len(sc.s) && strings.IndexByte("0123456789.eE+-", sc.s[sc.i]) >= 0 {
		sc.i++
	}
	v, err := strconv.ParseFloat(sc.s[start:sc.i], 64)
	if err != nil || start == sc.i {
		sc.i = start
		return 0, sc.fail(sc.col(), "expected a number")
	}
	return v, nil
}

func (sc *scanner) end(after string) error {
	sc.space()
	if sc.i < len(sc.s) {
		return sc.fail(sc.col(), fmt.Sprintf("unexpected %q after %s", sc.s[sc.i:], after))
	}
	return nil
}

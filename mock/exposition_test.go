package mock

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// promSample is one sample line of a page.
type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

// promFamily is one family of a page: its HELP, TYPE and samples in order.
type promFamily struct {
	name, help, typ string
	samples         []promSample
}

// parseExposition reads a text format 0.0.4 page strictly: every family has
// HELP then TYPE before its samples, every sample belongs to the family
// above it (with _bucket, _sum and _count for histograms), label values are
// quoted and escaped, no series repeats. Families are returned in page order.
func parseExposition(r io.Reader) ([]*promFamily, error) {
	var fams []*promFamily
	declared := map[string]bool{}
	seen := map[string]bool{}
	var cur *promFamily
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d %q: %s", line, text, fmt.Sprintf(format, args...))
		}
		switch {
		case strings.HasPrefix(text, "# HELP "):
			name, help, ok := strings.Cut(strings.TrimPrefix(text, "# HELP "), " ")
			if !ok || declared[name] {
				return nil, fail("HELP without text, or a family declared twice")
			}
			declared[name] = true
			h, err := unescape(help, false)
			if err != nil {
				return nil, fail("%v", err)
			}
			cur = &promFamily{name: name, help: h}
			fams = append(fams, cur)
		case strings.HasPrefix(text, "# TYPE "):
			name, typ, _ := strings.Cut(strings.TrimPrefix(text, "# TYPE "), " ")
			if cur == nil || cur.name != name || cur.typ != "" || len(cur.samples) > 0 {
				return nil, fail("TYPE not right after its HELP")
			}
			switch typ {
			case typeGauge, typeCounter, typeHistogram:
			default:
				return nil, fail("unknown type %q", typ)
			}
			cur.typ = typ
		case text == "" || strings.HasPrefix(text, "#"):
			return nil, fail("blank or stray comment line")
		default:
			if cur == nil || cur.typ == "" {
				return nil, fail("sample before its family's HELP and TYPE")
			}
			s, err := parseSample(text)
			if err != nil {
				return nil, fail("%v", err)
			}
			if !sampleOf(cur, s.name) {
				return nil, fail("sample %s outside family %s (%s)", s.name, cur.name, cur.typ)
			}
			key := s.name + seriesKey(s.labels, "")
			if seen[key] {
				return nil, fail("series repeated")
			}
			seen[key] = true
			cur.samples = append(cur.samples, s)
		}
	}
	return fams, sc.Err()
}

func sampleOf(f *promFamily, name string) bool {
	if f.typ != typeHistogram {
		return name == f.name
	}
	rest, ok := strings.CutPrefix(name, f.name)
	return ok && (rest == "_bucket" || rest == "_sum" || rest == "_count")
}

// parseSample reads `name{a="x",b="y"} value`.
func parseSample(text string) (promSample, error) {
	s := promSample{labels: map[string]string{}}
	i := strings.IndexAny(text, "{ ")
	if i <= 0 {
		return s, fmt.Errorf("no name")
	}
	s.name, text = text[:i], text[i:]
	if text[0] == '{' {
		text = text[1:]
		for text != "" && text[0] != '}' {
			eq := strings.Index(text, `="`)
			if eq <= 0 {
				return s, fmt.Errorf("label without =\"")
			}
			name := text[:eq]
			text = text[eq+2:]
			end := -1
			for j := 0; j < len(text); j++ {
				if text[j] == '\\' {
					j++
					continue
				}
				if text[j] == '"' {
					end = j
					break
				}
			}
			if end < 0 {
				return s, fmt.Errorf("unterminated label value")
			}
			v, err := unescape(text[:end], true)
			if err != nil {
				return s, err
			}
			if _, dup := s.labels[name]; dup {
				return s, fmt.Errorf("label %s twice", name)
			}
			s.labels[name] = v
			text = strings.TrimPrefix(text[end+1:], ",")
		}
		if text == "" {
			return s, fmt.Errorf("unterminated label set")
		}
		text = text[1:]
	}
	v, ok := strings.CutPrefix(text, " ")
	if !ok || strings.ContainsAny(v, " \t") {
		return s, fmt.Errorf("want one space, then the value alone")
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return s, err
	}
	s.value = f
	return s, nil
}

// unescape undoes the format's escapes: \\ and \n, and \" in label values.
func unescape(s string, label bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			if label && s[i] == '"' {
				return "", fmt.Errorf("unescaped quote")
			}
			b.WriteByte(s[i])
			continue
		}
		i++
		switch {
		case i < len(s) && s[i] == '\\':
			b.WriteByte('\\')
		case i < len(s) && s[i] == 'n':
			b.WriteByte('\n')
		case i < len(s) && s[i] == '"' && label:
			b.WriteByte('"')
		default:
			return "", fmt.Errorf("bad escape in %q", s)
		}
	}
	return b.String(), nil
}

// seriesKey is a label set without the label skip, in a stable order.
func seriesKey(labels map[string]string, skip string) string {
	var parts []string
	for k, v := range labels {
		if k != skip {
			parts = append(parts, k+"="+strconv.Quote(v))
		}
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// scrape fetches and parses a server's page, failing on anything invalid.
func scrape(t *testing.T, base string) []*promFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("GET /metrics: %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	fams, err := parseExposition(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func findFamily(fams []*promFamily, name string) *promFamily {
	for _, f := range fams {
		if f.name == name {
			return f
		}
	}
	return nil
}

// total adds a family's samples named name whose labels include match.
func total(fams []*promFamily, family, name string, match map[string]string) float64 {
	f := findFamily(fams, family)
	if f == nil {
		return math.NaN()
	}
	t := 0.0
outer:
	for _, s := range f.samples {
		if s.name != name {
			continue
		}
		for k, v := range match {
			if s.labels[k] != v {
				continue outer
			}
		}
		t += s.value
	}
	return t
}

func TestFormatFloatWritesValuesAsPrometheusDoes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{300, "300"},
		{7453260, "7453260"},
		{268435456, "268435456"},
		{-3, "-3"},
		{0.05, "0.05"},
		{0.001, "0.001"},
		{2.5, "2.5"},
		{0.30000000000000004, "0.30000000000000004"}, // 0.1+0.2: shortest, not rounded
		{1.5e-5, "1.5e-05"},
		{1e15, "1e+15"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
		{math.NaN(), "NaN"},
	}
	for _, tc := range tests {
		if got := formatFloat(tc.in); got != tc.want {
			t.Errorf("formatFloat(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if back, err := strconv.ParseFloat(formatFloat(tc.in), 64); err != nil || (back != tc.in && !math.IsNaN(tc.in)) {
			t.Errorf("%q reads back as %v, %v", formatFloat(tc.in), back, err)
		}
	}
}

// A model name is a label value like any other: quotes, backslashes and
// newlines in it are escaped, and the page still parses back to the name.
func TestLabelValuesAreEscaped(t *testing.T) {
	t.Parallel()
	weird := "org/we\"ird\\model\nv2"
	p := Profile{Name: "weird", Model: weird, Stages: []Stage{{Name: "thinker", Output: OutputText, Units: 3,
		TimeToFirstOutput: 5 * ms, TimePerUnit: 2 * ms}}}
	s, u := startServer(t, WithProfiles(p), WithProfile("weird"))
	resp := post(t, u+chatURL, `{"messages":[{"role":"user","content":"hi"}]}`)
	_, _ = io.ReadAll(resp.Body)
	page := scrapeText(t, u)
	if want := `model_name="org/we\"ird\\model\nv2"`; !strings.Contains(page, want) {
		t.Fatalf("page has no %s:\n%s", want, page)
	}
	fams, err := parseExposition(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if got := total(fams, "vllm:request_success_total", "vllm:request_success_total", map[string]string{"model_name": weird}); got != 1 {
		t.Fatalf("success for the weird model = %v, want 1", got)
	}
	if got := s.Observed().Counters["vllm:request_success_total"]; got != 1 {
		t.Fatalf("Observed success = %v", got)
	}
}

func scrapeText(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

func TestParseExpositionRejectsBrokenPages(t *testing.T) {
	t.Parallel()
	for _, page := range []string{
		"x 1\n",                             // no HELP/TYPE
		"# HELP x h\n# TYPE x gauge\ny 1\n", // sample of another family
		"# HELP x h\n# TYPE x gauge\nx{a=\"b} 1\n", // unterminated value
		"# HELP x h\n# TYPE x gauge\nx{a=\"b\"c\"} 1\n",
		"# HELP x h\n# TYPE x gauge\nx 1\nx 2\n", // repeated series
		"# HELP x h\n# TYPE x histogram\nx_total 1\n",
		"# HELP x h\n# TYPE x gauge\nx  1\n",
	} {
		if _, err := parseExposition(strings.NewReader(page)); err == nil {
			t.Errorf("accepted %q", page)
		}
	}
}

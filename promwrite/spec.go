package promwrite

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/omnik-dev/omnik/modules/httpdebug"
)

// Name is the output's name in --out specs: prometheus=URL.
const Name = "prometheus"

// Defaults of the spec's options.
const (
	DefaultInterval  = 5 * time.Second
	DefaultMaxSeries = 10_000
	// maxDefaultTimeout caps the default timeout (the interval) for long intervals, so
	// the end of a run never waits minutes on a receiver that hangs.
	maxDefaultTimeout = 10 * time.Second
	minInterval       = 100 * time.Millisecond
)

// Environment variables that carry what a spec must not: credentials stay out of the
// command line, the shell history and the process list.
const (
	// EnvHeaders are extra request headers, "Name=value,Name2=value2" with percent-encoded
	// values, as OTEL_EXPORTER_OTLP_HEADERS spells them.
	EnvHeaders = "OMNIK_PROMETHEUS_HEADERS"
	// EnvBearerToken is sent as "Authorization: Bearer TOKEN".
	EnvBearerToken = "OMNIK_PROMETHEUS_BEARER_TOKEN"
)

// Mode says how Trend metrics are sent.
type Mode int

// The histogram modes.
const (
	// Auto sends native histograms until the receiver refuses one, then classic ones.
	Auto Mode = iota
	// Native sends native (sparse, exponential) histograms only.
	Native
	// Classic sends _bucket{le}, _sum and _count series only.
	Classic
)

var modeNames = map[Mode]string{Auto: "auto", Native: "native", Classic: "classic"}

func (m Mode) String() string { return modeNames[m] }

// Config is a parsed --out prometheus= spec with its environment.
type Config struct {
	URL       *url.URL // the remote-write endpoint, without user info
	Interval  time.Duration
	Timeout   time.Duration // of each push, retries included
	TestID    string        // "" leaves it to a testid tag or a generated one
	Mode      Mode
	MaxSeries int
	// Header goes with every request: EnvHeaders, EnvBearerToken and the URL's user info
	// (as basic auth).
	Header http.Header
}

// IsSpec reports whether spec names this output (prometheus=…), so callers dispatch it
// before the file outputs.
func IsSpec(spec string) bool {
	name, _, _ := strings.Cut(spec, "=")
	return name == Name
}

// options are the keys a spec may set after its URL.
var options = []string{"interval", "timeout", "testid", "histograms", "max_series"}

// ParseSpec parses "prometheus=URL[,key=value…]"; getenv reads the environment
// variables (os.Getenv). Its errors quote the spec with credentials redacted.
func ParseSpec(spec string, getenv func(string) string) (*Config, error) {
	shown, secrets := redactSpec(spec)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("--out %s: %s", shown, httpdebug.RedactValues(fmt.Sprintf(format, args...), secrets))
	}
	name, rest, _ := strings.Cut(spec, "=")
	if name != Name {
		return nil, fail("not a %s output", Name)
	}
	parts := strings.Split(rest, ",")
	u, err := parseURL(parts[0])
	if err != nil {
		return nil, fail("%v (want %s=http://HOST:9090/api/v1/write[,key=value…])", err, Name)
	}
	c := &Config{Interval: DefaultInterval, MaxSeries: DefaultMaxSeries, Header: http.Header{}}
	seen := map[string]bool{}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		switch {
		case !ok || k == "":
			return nil, fail("option %q: want key=value (keys: %s)", redactPart(p), strings.Join(options, ", "))
		case seen[k]:
			return nil, fail("option %s given twice", k)
		}
		seen[k] = true
		if err := c.set(k, v); err != nil {
			return nil, fail("%v", err)
		}
	}
	if !seen["timeout"] {
		c.Timeout = min(c.Interval, maxDefaultTimeout)
	}
	if err := c.auth(u, getenv); err != nil {
		return nil, fail("%v", err)
	}
	u.User = nil
	c.URL = u
	return c, nil
}

// RedactSpec is spec as it may be printed: the URL's user info and credential query
// parameters replaced, whether or not the URL parses.
func RedactSpec(spec string) string {
	s, _ := redactSpec(spec)
	return s
}

// redactSpec returns the printable spec and the credential candidates in it (what lies
// between "//" and the last "@" of its URL's authority), which error texts must not quote
// either. The authority is found before the spec is split on its commas: a password may
// hold one (u:pa,ss@host).
func redactSpec(spec string) (string, []string) {
	name, rest, _ := strings.Cut(spec, "=")
	start := 0 // without a "//", user info starts the URL (u:p@host)
	if i := strings.Index(rest, "//"); i >= 0 {
		start = i + 2
	}
	end := len(rest)
	if j := strings.IndexAny(rest[start:], "/?#"); j >= 0 {
		end = start + j
	}
	var secrets []string
	if at := strings.LastIndexByte(rest[start:end], '@'); at >= 0 {
		info := rest[start : start+at]
		secrets = append(secrets, info)
		for _, p := range strings.FieldsFunc(info, func(r rune) bool { return r == ':' || r == '@' || r == ',' }) {
			if u, err := url.PathUnescape(p); err == nil && u != p {
				secrets = append(secrets, u)
			}
			secrets = append(secrets, p)
		}
		rest = rest[:start] + httpdebug.Redacted + rest[start+at:]
	}
	raw, opts, hasOpts := strings.Cut(rest, ",")
	shown := name + "=" + httpdebug.RedactText(raw)
	if hasOpts {
		shown += "," + httpdebug.RedactValues(opts, secrets)
	}
	return httpdebug.RedactValues(shown, secrets), secrets
}

// redactPart is an option as an error may quote it: a stray piece of a URL split on a
// comma may hold a credential.
func redactPart(p string) string {
	if len(p) > 40 {
		p = p[:40] + "…"
	}
	return httpdebug.RedactQuery(p)
}

func parseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("the URL is missing")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error quotes the URL whole: say what is wrong without it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("bad URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("URL scheme %q: want http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("the URL has no host")
	}
	if u.Path == "" || u.Path == "/" {
		// Prometheus's receiver, so http://localhost:9090 is enough.
		u.Path = "/api/v1/write"
	}
	return u, nil
}

func (c *Config) set(k, v string) error {
	switch k {
	case "interval":
		d, err := time.ParseDuration(v)
		if err != nil || d < minInterval || d > 24*time.Hour {
			return fmt.Errorf("interval %q: want a duration from %v to 24h, such as 5s", v, minInterval)
		}
		c.Interval = d
	case "timeout":
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Millisecond || d > 10*time.Minute {
			return fmt.Errorf("timeout %q: want a duration from 10ms to 10m, such as 5s", v)
		}
		c.Timeout = d
	case "testid":
		if v == "" || len(v) > 256 || !utf8.ValidString(v) {
			return fmt.Errorf("testid %q: want a non-empty UTF-8 value of at most 256 bytes", v)
		}
		c.TestID = v
	case "histograms":
		for m, n := range modeNames {
			if v == n {
				c.Mode = m
				return nil
			}
		}
		return fmt.Errorf("histograms %q: want auto, native or classic", v)
	case "max_series":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10_000_000 {
			return fmt.Errorf("max_series %q: want a whole number from 1 to 10000000", v)
		}
		c.MaxSeries = n
	default:
		return fmt.Errorf("unknown option %q (keys: %s; credentials go in %s or %s)", k, strings.Join(options, ", "), EnvHeaders, EnvBearerToken)
	}
	return nil
}

// auth fills Header from the environment and the URL's user info; it names a variable
// that is wrong, never its value.
func (c *Config) auth(u *url.URL, getenv func(string) string) error {
	if raw := getenv(EnvHeaders); raw != "" {
		for _, p := range strings.Split(raw, ",") {
			k, v, ok := strings.Cut(p, "=")
			k = strings.TrimSpace(k)
			if !ok || !validHeaderName(k) {
				return fmt.Errorf("%s: want Name=value pairs separated by commas (an entry has no valid header name)", EnvHeaders)
			}
			dv, err := url.PathUnescape(strings.TrimSpace(v))
			if err != nil || strings.ContainsAny(dv, "\r\n\x00") {
				return fmt.Errorf("%s: the value of %s is not a valid percent-encoded header value", EnvHeaders, k)
			}
			c.Header.Add(k, dv)
		}
	}
	basic := ""
	if u.User != nil {
		pw, _ := u.User.Password()
		basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
	}
	token := getenv(EnvBearerToken)
	if strings.ContainsAny(token, "\r\n\x00") {
		return fmt.Errorf("%s holds a line break", EnvBearerToken)
	}
	set := 0
	for _, present := range []bool{c.Header.Get("Authorization") != "", basic != "", token != ""} {
		if present {
			set++
		}
	}
	if set > 1 {
		return fmt.Errorf("more than one credential: use one of the URL's user info, %s or an Authorization header in %s", EnvBearerToken, EnvHeaders)
	}
	if basic != "" {
		c.Header.Set("Authorization", basic)
	}
	if token != "" {
		c.Header.Set("Authorization", "Bearer "+token)
	}
	return nil
}

// validHeaderName is RFC 9110's token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0) {
			return false
		}
	}
	return true
}

package promwrite

import (
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	t.Parallel()
	c, err := ParseSpec("prometheus=http://127.0.0.1:9090/api/v1/write,interval=2s,testid=nightly,histograms=classic,max_series=5000,timeout=750ms", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.URL.String() != "http://127.0.0.1:9090/api/v1/write" || c.Interval != 2*time.Second || c.Timeout != 750*time.Millisecond ||
		c.TestID != "nightly" || c.Mode != Classic || c.MaxSeries != 5000 {
		t.Errorf("%+v", c)
	}
	for spec, want := range map[string]struct {
		url               string
		interval, timeout time.Duration
	}{
		"prometheus=http://localhost:9090":                {"http://localhost:9090/api/v1/write", DefaultInterval, DefaultInterval},
		"prometheus=https://m.example/push?x=1":           {"https://m.example/push?x=1", DefaultInterval, DefaultInterval},
		"prometheus=http://h:1/w,interval=1s":             {"http://h:1/w", time.Second, time.Second},
		"prometheus=http://h:1/w,interval=1m":             {"http://h:1/w", time.Minute, maxDefaultTimeout},
		"prometheus=http://h:1/w,interval=1m,timeout=30s": {"http://h:1/w", time.Minute, 30 * time.Second},
	} {
		c, err := ParseSpec(spec, noEnv)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if c.URL.String() != want.url || c.Interval != want.interval || c.Timeout != want.timeout || c.Mode != Auto || c.MaxSeries != DefaultMaxSeries {
			t.Errorf("%s: %v %v %v %v %v", spec, c.URL, c.Interval, c.Timeout, c.Mode, c.MaxSeries)
		}
	}
}

// A bad spec fails with one message that says what is wrong.
func TestParseSpecErrors(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"prometheus":                                    "the URL is missing",
		"prometheus=":                                   "the URL is missing",
		"prometheus=localhost:9090":                     `URL scheme "localhost": want http or https`,
		"prometheus=ftp://h/w":                          `URL scheme "ftp"`,
		"prometheus=http:///w":                          "the URL has no host",
		"prometheus=http://h/w,interval=fast":           `interval "fast": want a duration`,
		"prometheus=http://h/w,interval=1ms":            `interval "1ms"`,
		"prometheus=http://h/w,timeout=0s":              `timeout "0s"`,
		"prometheus=http://h/w,histograms=x":            "want auto, native or classic",
		"prometheus=http://h/w,max_series=0":            `max_series "0"`,
		"prometheus=http://h/w,testid=":                 "testid",
		"prometheus=http://h/w,color=red":               `unknown option "color" (keys: interval, timeout, testid, histograms, max_series`,
		"prometheus=http://h/w,,interval=1s":            "want key=value",
		"prometheus=http://h/w,interval=1s,interval=2s": "option interval given twice",
		"prometheus=http://h/%zz":                       "bad URL",
	} {
		_, err := ParseSpec(spec, noEnv)
		if err == nil {
			t.Errorf("%s: no error", spec)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--out ") {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// Credentials come from the URL's user info (basic auth), OMNIK_PROMETHEUS_BEARER_TOKEN
// or OMNIK_PROMETHEUS_HEADERS, one at a time, and the URL keeps no user info.
func TestParseSpecCredentials(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := ParseSpec("prometheus=http://h/w", env(map[string]string{EnvBearerToken: "tok", EnvHeaders: "X-Scope-OrgID=a, X-B=%20b%20"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Get("Authorization") != "Bearer tok" || c.Header.Get("X-Scope-OrgID") != "a" || c.Header.Get("X-B") != " b " {
		t.Errorf("%v", c.Header)
	}
	c, err = ParseSpec("prometheus=http://u:p%40ss@h/w", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Get("Authorization") != "Basic dTpwQHNz" || c.URL.User != nil {
		t.Errorf("%v %v", c.Header, c.URL)
	}
	for _, tc := range []struct {
		spec string
		env  map[string]string
		want string
	}{
		{"prometheus=http://u:p@h/w", map[string]string{EnvBearerToken: "t"}, "more than one credential"},
		{"prometheus=http://h/w", map[string]string{EnvBearerToken: "t", EnvHeaders: "Authorization=Basic%20x"}, "more than one credential"},
		{"prometheus=http://h/w", map[string]string{EnvHeaders: "novalue"}, EnvHeaders + ": want Name=value"},
		{"prometheus=http://h/w", map[string]string{EnvHeaders: "Bad Name=v"}, EnvHeaders},
		{"prometheus=http://h/w", map[string]string{EnvHeaders: "X=%0Aevil"}, "not a valid percent-encoded header value"},
	} {
		_, err := ParseSpec(tc.spec, env(tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.spec, tc.env, err, tc.want)
		}
	}
}

// Neither Description nor a spec error quotes a password or a token, whatever the URL.
func TestSpecRedaction(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"prometheus=http://alice:s3cretpw@h/w,interval=2s",
		"prometheus=http://alice:s3cretpw@h/w,interval=nope",
		"prometheus=http://alice:s3cretpw@h:notaport/w",
		"prometheus=alice:s3cretpw@h:9090/w",
		"prometheus=//alice:s3cretpw@h/w",
		"prometheus=http://h/w?api_key=s3cretpw,testid=x",
		"prometheus=http://h/w?api_key=s3cretpw,bogus",
		"prometheus=http://alice:s3cr,etpw@h/w",     // a comma in the password
		"prometheus=http://alice:s3cr,etpw@h/w,x=y", // and options after it
	} {
		_, err := ParseSpec(spec, noEnv)
		for what, s := range map[string]string{"RedactSpec": RedactSpec(spec), "the error": errString(err)} {
			if strings.Contains(s, "s3cretpw") || strings.Contains(s, "s3cr") || strings.Contains(s, "etpw") {
				t.Errorf("%s of %s shows the secret: %s", what, spec, s)
			}
		}
	}
	if got := RedactSpec("prometheus=http://alice:pw@h/w,testid=x"); got != "prometheus=http://REDACTED@h/w,testid=x" {
		t.Errorf("RedactSpec = %s", got)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzParseSpec: any spec parses or fails without a panic; a parsed one is usable (an
// http(s) URL with a host and no user info, positive durations, a cap of at least one),
// and a password in the URL shows in no error and no description.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"prometheus=http://127.0.0.1:9090/api/v1/write,interval=2s,testid=nightly,histograms=classic,max_series=5000,timeout=1s",
		"prometheus=http://u:p@h", "prometheus=https://h/x?token=abc,testid=y", "prometheus=,=,", "prometheus=http://h/w,interval=",
	} {
		f.Add(s, "hunter2pw")
	}
	f.Fuzz(func(t *testing.T, spec, secret string) {
		c, err := ParseSpec(spec, noEnv)
		if err == nil {
			if (c.URL.Scheme != "http" && c.URL.Scheme != "https") || c.URL.Host == "" || c.URL.User != nil ||
				c.Interval < minInterval || c.Timeout <= 0 || c.MaxSeries < 1 {
				t.Fatalf("%q parsed into an unusable %+v", spec, c)
			}
		}
		// The same spec with a password in its URL.
		if len(secret) < 4 || strings.ContainsFunc(secret, func(r rune) bool {
			return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
		}) {
			return
		}
		rest := strings.TrimPrefix(spec, "prometheus=")
		if strings.Contains(rest, secret) {
			return
		}
		withPW := "prometheus=http://user:" + secret + "@" + strings.TrimPrefix(strings.TrimPrefix(rest, "http://"), "https://")
		_, err = ParseSpec(withPW, noEnv)
		if strings.Contains(errString(err), secret) || strings.Contains(RedactSpec(withPW), secret) {
			t.Fatalf("%q: the password shows: %v / %s", withPW, err, RedactSpec(withPW))
		}
	})
}

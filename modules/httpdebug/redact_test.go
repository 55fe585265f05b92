package httpdebug

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRedactHeader(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, value, want string }{
		{"Authorization", "Bearer sk-123", "Bearer REDACTED"},
		{"Authorization", "sk-123", "REDACTED"},
		{"Proxy-Authorization", "Basic dXNlcjpwYXNz", "Basic REDACTED"},
		{"Api-Key", "abc", "REDACTED"},
		{"X-Api-Key", "abc def ghi", "REDACTED"},
		{"Cookie", "session=abc; theme=dark", "REDACTED"},
		{"Set-Cookie", "id=abc; HttpOnly", "REDACTED"},
		{"X-Auth-Token", "t", "REDACTED"},
		{"Ocp-Apim-Subscription-Key", "k", "REDACTED"},
		{"Content-Type", "application/json", "application/json"},
		{"Authorization", "", ""},
		{"Authorization", "sk-abc def", "REDACTED"}, // no scheme: the whole value is the key
		{"Authorization", "token abc", "token REDACTED"},
		{"X-Goog-Sig", "s", "REDACTED"},
		{"Location", "https://blob.example/x?sv=1&sig=abc&token=t", "https://blob.example/x?sv=1&sig=REDACTED&token=REDACTED"},
		{"Location", "https://user:pw@h/next", "https://REDACTED@h/next"},
		{"Referer", "http://h/p?api_key=k", "http://h/p?api_key=REDACTED"},
	}
	for _, tc := range tests {
		if got := RedactHeader(tc.name, tc.value); got != tc.want {
			t.Errorf("RedactHeader(%q, %q) = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"http://h:8000/v1/models?api_key=sk-1&x=1", "http://h:8000/v1/models?api_key=REDACTED&x=1"},
		{"http://h/p?token=t&access_token=a&key=k&model=m", "http://h/p?token=REDACTED&access_token=REDACTED&key=REDACTED&model=m"},
		{"http://h/p?api%5Fkey=s&a+b=c", "http://h/p?api%5Fkey=REDACTED&a+b=c"},
		{"http://user:pass@h/p", "http://REDACTED@h/p"},
		{"http://h/p?key=&flag&token", "http://h/p?key=&flag&token"},
		{"http://h/health", "http://h/health"},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := RedactURL(u); got != tc.want {
			t.Errorf("RedactURL(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzRedactQuery: every credential parameter comes out redacted, every other one as it
// went in.
func FuzzRedactQuery(f *testing.F) {
	for _, s := range []string{"api_key=sk-1&x=1", "token=a&token=b", "a%ZZ=1&key=2", "&&=&key==x", "tok%65n=s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		in, out := strings.Split(raw, "&"), strings.Split(RedactQuery(raw), "&")
		if raw == "" {
			in = []string{""}
		}
		if len(in) != len(out) {
			t.Fatalf("%q: %d pairs became %d", raw, len(in), len(out))
		}
		for i := range in {
			name, value, hasValue := strings.Cut(in[i], "=")
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			want := in[i]
			if hasValue && value != "" && sensitive(name) {
				want = in[i][:len(in[i])-len(value)] + Redacted
			}
			if out[i] != want {
				t.Fatalf("%q: pair %q became %q, want %q", raw, in[i], out[i], want)
			}
		}
	})
}

// FuzzRedactHeader: a credential header keeps at most a short auth scheme.
func FuzzRedactHeader(f *testing.F) {
	f.Add("Authorization", "Bearer sk-1")
	f.Add("X-Api-Key", "k")
	f.Add("Accept", "text/plain")
	f.Add("Location", "https://h/?sig=1")
	f.Fuzz(func(t *testing.T, name, value string) {
		out := RedactHeader(name, value)
		if urlHeaders[strings.ToLower(name)] {
			return // a URL, redacted by RedactURL (FuzzRedactQuery)
		}
		if !sensitive(name) || value == "" {
			if out != value {
				t.Fatalf("%s: %q changed to %q", name, value, out)
			}
			return
		}
		scheme, ok := strings.CutSuffix(out, Redacted)
		if !ok || !strings.HasPrefix(value, scheme) || (scheme != "" && !authSchemes[strings.ToLower(strings.TrimSuffix(scheme, " "))]) {
			t.Fatalf("%s: %q printed as %q", name, value, out)
		}
	})
}

func TestRedactText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`Post "http://u:pw@gpu:8000/v1/chat/completions?api_key=sk-1&region=eu": dial tcp 10.0.0.1:8000: connect: connection refused`: `Post "http://REDACTED@gpu:8000/v1/chat/completions?api_key=REDACTED&region=eu": dial tcp 10.0.0.1:8000: connect: connection refused`,
		"HTTP 503: no diffusion stage":                                   "HTTP 503: no diffusion stage",
		"redirect to https://cdn/x?sig=abc then ws://h/?token=t2 failed": "redirect to https://cdn/x?sig=REDACTED then ws://h/?token=REDACTED failed",
		"bad http://%zz/?key=k":                                          "bad REDACTED",
	} {
		if got := RedactText(in); got != want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// FuzzRedactText: a secret in a URL's user info or in a credential parameter never
// comes out, whatever surrounds the URL.
func FuzzRedactText(f *testing.F) {
	f.Add("before ", "s3cr3t-value", " after")
	f.Add(`Get "`, "k", `": EOF`)
	f.Fuzz(func(t *testing.T, before, secret, after string) {
		if len(secret) < 4 || strings.ContainsAny(secret, " \t\n\"'<>&#%/?@:=") {
			return // the secret must be one URL-safe token, else it is not in the URL at all
		}
		for _, u := range []string{"http://user:" + secret + "@h/x", "https://h/x?api_key=" + secret + "&a=1"} {
			if out := RedactText(before + u + after); strings.Contains(out, secret) && !strings.Contains(before+after, secret) {
				t.Fatalf("%q leaked %q", before+u+after, out)
			}
		}
	})
}

func TestHeaderSecretsAndRedactValues(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-abc123")
	h.Set("X-Api-Key", "k-456789")
	h.Set("Accept", "text/plain")
	h.Set("X-Token", "ab") // too short to redact by value
	got := RedactValues("echo: Bearer sk-abc123 / sk-abc123 / k-456789 / text/plain / ab", HeaderSecrets(h))
	if want := "echo: REDACTED / REDACTED / REDACTED / text/plain / ab"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

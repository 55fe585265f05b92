package httpdebug

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// Redacted replaces a credential in what --http-debug prints.
const Redacted = "REDACTED"

// sensitiveWords mark a header or query parameter name as carrying a credential; a
// false alarm only hides a value from a debug print.
var sensitiveWords = []string{"key", "token", "secret", "password", "passwd", "auth", "sig", "credential", "session", "cookie", "jwt"}

// urlHeaders carry a URL whose query may hold a credential (a redirect to a signed URL).
var urlHeaders = map[string]bool{"location": true, "content-location": true, "referer": true}

// authSchemes are the schemes kept in front of a redacted Authorization; anything else
// before a space may be the start of the key itself.
var authSchemes = map[string]bool{"bearer": true, "basic": true, "digest": true, "token": true, "negotiate": true, "apikey": true, "aws4-hmac-sha256": true}

func sensitive(name string) bool {
	n := strings.ToLower(name)
	for _, w := range sensitiveWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RedactHeader is the value of header name as it may be printed: a credential becomes
// Redacted, keeping the scheme of an Authorization ("Bearer REDACTED").
func RedactHeader(name, value string) string {
	if urlHeaders[strings.ToLower(name)] {
		if u, err := url.Parse(value); err == nil {
			return RedactURL(u)
		}
		return Redacted
	}
	if !sensitive(name) || value == "" {
		return value
	}
	if !strings.HasSuffix(strings.ToLower(name), "authorization") {
		return Redacted
	}
	if scheme, _, ok := strings.Cut(value, " "); ok && authSchemes[strings.ToLower(scheme)] {
		return scheme + " " + Redacted
	}
	return Redacted
}

// RedactURL is u as it may be printed: no user info, and the value of every query
// parameter whose name marks a credential (api_key=, token=, …) replaced.
func RedactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(Redacted)
	}
	c.RawQuery = RedactQuery(c.RawQuery)
	return c.String()
}

// RedactRawURL is RedactURL of raw, or "(unparsable URL)": a URL that does not parse
// is not quoted at all, since where its credentials lie is unknown.
func RedactRawURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return RedactURL(u)
}

// RedactQuery redacts a raw query string pair by pair, leaving every other byte as sent.
func RedactQuery(raw string) string {
	if raw == "" {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, value, ok := strings.Cut(p, "=")
		if !ok || value == "" {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if sensitive(name) {
			parts[i] = p[:len(p)-len(value)] + Redacted
		}
	}
	return strings.Join(parts, "&")
}

// writeHeader prints h sorted by name, credentials redacted.
func writeHeader(b *strings.Builder, h http.Header) {
	for _, k := range sortedKeys(h) {
		for _, v := range h[k] {
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(RedactHeader(k, v))
			b.WriteByte('\n')
		}
	}
}

// urlInText finds the URLs in a message, such as Go's `Post "http://h/v1?api_key=…":
// dial tcp …` errors, which end at a quote, a space or an angle bracket.
var urlInText = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)

// RedactText is a message as it may be written (a request's error in a result file or a
// report): every URL in it redacted as RedactURL does, the rest as it was.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			return Redacted
		}
		return RedactURL(u)
	})
}

// minSecret is the shortest credential value redacted wherever it appears: shorter ones
// ("1", "on") would blank out unrelated text.
const minSecret = 4

// HeaderSecrets are the credential values a request sends in h: every value of a header
// whose name marks a credential, and for an Authorization the part after its scheme. A
// server may echo them back in an error body; RedactValues takes them out of it.
func HeaderSecrets(h http.Header) []string {
	var out []string
	for name, values := range h {
		if !sensitive(name) {
			continue
		}
		for _, v := range values {
			out = append(out, v)
			if scheme, rest, ok := strings.Cut(v, " "); ok && authSchemes[strings.ToLower(scheme)] {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	return out
}

// RedactValues is s with every occurrence of each secret (of at least minSecret bytes)
// replaced by Redacted.
func RedactValues(s string, secrets []string) string {
	for _, v := range secrets {
		if len(v) >= minSecret && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

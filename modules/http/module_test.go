package http

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/js"
)

// echo answers with what it received: method, body, a header, the query.
func echo() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Seen", "a")
		w.Header().Add("X-Seen", "b")
		fmt.Fprintf(w, `{"method":%q,"body":%q,"type":%q,"custom":%q,"query":%q,"items":[1,2,3]}`,
			r.Method, body, r.Header.Get("Content-Type"), r.Header.Get("X-Custom"), r.URL.RawQuery)
	}))
}

func TestCallsSendWhatTheScriptGaveAndReturnTheResponse(t *testing.T) {
	t.Parallel()
	srv := echo()
	defer srv.Close()
	k := mustRun(t, env{srv: srv}, `import http from 'omnik/http';
import { post, request } from 'omnik/http';
export default async function () {
  const g = http.get('/x?a=1', { headers: { 'X-Custom': 'c' } });
  const j = g.json();
  const p = post('/p', { prompt: 'hi' });
  const s = http.put('/p', 'plain');
  const b = request('PATCH', '/p', new Uint8Array([104, 105]));
  const a = await http.asyncRequest('DELETE', '/p');
  const h = http.head('/x');
  const checks = [
    g.ok && g.status === 200 && g.error === '' && g.error_code === '',
    j.method === 'GET' && j.custom === 'c' && j.query === 'a=1',
    Array.isArray(j.items) && j.items.map((x) => x * 2).join() === '2,4,6',
    g.headers['Content-Type'] === 'application/json' && g.headers['X-Seen'] === 'a, b',
    g.timings.duration >= g.timings.waiting && g.timings.waiting > 0,
    typeof g.body === 'string' && g.body.startsWith('{"method":"GET"'),
    p.json().body === '{"prompt":"hi"}' && p.json().type === 'application/json',
    s.json().method === 'PUT' && s.json().body === 'plain',
    b.json().method === 'PATCH' && b.json().body === 'hi',
    a.json().method === 'DELETE',
    h.status === 200 && h.body === '',
  ];
  const bad = checks.map((c, i) => (c ? '' : i)).filter((x) => x !== '');
  globalThis.ok = bad.length === 0 ? 'ok' : 'failed checks ' + bad.join(',');
}`)
	reqs := k.of("http_reqs")
	if len(reqs) != 6 {
		t.Fatalf("%d http_reqs samples, want 6", len(reqs))
	}
	if s := reqs[0]; tag(s, "method") != "GET" || tag(s, "status") != "200" || tag(s, "name") != srv.URL+"/x" || tag(s, "scenario") != "s" {
		t.Errorf("first request's tags = %v", s.Tags.Map())
	}
	if d, w := k.of("http_req_duration"), k.of("http_req_waiting"); len(d) != 6 || len(w) != 6 {
		t.Errorf("%d duration and %d waiting samples, want 6 each", len(d), len(w))
	}
	if sent := k.of("data_sent"); sent[1].Value != float64(len(`{"prompt":"hi"}`)) {
		t.Errorf("data_sent of the post = %v", sent[1].Value)
	}
	for _, f := range k.of("http_req_failed") {
		if f.Value != 0 {
			t.Errorf("a successful call counted as failed: %v", f.Tags.Map())
		}
	}
}

func TestTagsFollowParamsAndGroups(t *testing.T) {
	t.Parallel()
	srv := echo()
	defer srv.Close()
	k := mustRun(t, env{srv: srv}, `import http from 'omnik/http';
import { group } from 'omnik';
export default async function () {
  http.get('/items/42?token=t', { tags: { name: 'item', team: 'a' } });
  await group('g', async () => { await http.asyncRequest('GET', '/y?token=secret'); });
  globalThis.ok = 'ok';
}`)
	reqs := k.of("http_reqs")
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if s := reqs[0]; tag(s, "name") != "item" || tag(s, "team") != "a" {
		t.Errorf("params tags lost: %v", s.Tags.Map())
	}
	if s := reqs[1]; tag(s, "group") != "::g" || tag(s, "name") != srv.URL+"/y" {
		t.Errorf("want group ::g and a name without the query: %v", s.Tags.Map())
	}
}

func TestFailuresAreCountedWithTheirReason(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/slow":
			<-r.Context().Done()
		case "/huge":
			chunk := make([]byte, 1<<20)
			for i := 0; i <= MaxBody>>20; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/redirect":
			http.Redirect(w, r, "/final", http.StatusFound)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	k := mustRun(t, env{srv: srv}, `import http from 'omnik/http';
export default function () {
  const got = [
    http.get('/down'),
    http.get('/slow', { timeout: 50 }),
    http.get('/slow', { timeout: '50ms' }),
    http.get('/huge'),
    http.get('`+closed.URL+`/'),
  ].map((r) => r.error_code + ':' + r.ok);
  const none = http.get('/huge', { responseType: 'none' });
  const redirected = http.get('/redirect');
  const want = 'http_status:false,timeout:false,timeout:false,body_too_large:false,connect:false';
  globalThis.ok = got.join() === want && none.ok && none.body === null && redirected.ok && redirected.url.endsWith('/final')
    ? 'ok' : got.join() + ' ' + none.error;
}`)
	var kinds []string
	for _, f := range k.of("http_req_failed") {
		if f.Value == 1 {
			kinds = append(kinds, tag(f, "error"))
		}
	}
	if got := strings.Join(kinds, ","); got != "http_status,timeout,timeout,body_too_large,connect" {
		t.Errorf("failed samples' error tags = %s", got)
	}
	// Only the two that succeeded are timed, as omni calls are.
	if d := k.of("http_req_duration"); len(d) != 2 {
		t.Errorf("%d duration samples, want 2", len(d))
	}
	if r := k.of("data_received"); r[5].Value != float64((MaxBody>>20+1)<<20) {
		t.Errorf("responseType none received %v bytes, want every byte counted", r[5].Value)
	}
}

func TestBodyTypes(t *testing.T) {
	t.Parallel()
	srv := echo()
	defer srv.Close()
	mustRun(t, env{srv: srv}, `import http from 'omnik/http';
export default function () {
  const bin = http.get('/', { responseType: 'binary' });
  const none = http.get('/', { responseType: 'none' });
  let threw = '';
  try { none.json(); } catch (e) { threw = String(e); }
  globalThis.ok = bin.body instanceof ArrayBuffer && bin.body.byteLength > 10 && none.body === null && threw.includes('responseType')
    ? 'ok' : String(bin.body) + threw;
}`)
}

func TestScriptMistakesThrow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{`import http from 'omnik/http'; http.get('http://h/'); export default function () {}`, "http.get() can only be called in VU"},
		{`import http from 'omnik/http'; export default function () { http.get('ftp://h/'); }`, "want an http or https URL"},
		{`import http from 'omnik/http'; export default function () { http.get('/x'); }`, "no base URL"},
		{`import http from 'omnik/http'; export default function () { http.get('http://h/', { responseType: 'json' }); }`, "want text, binary or none"},
		{`import http from 'omnik/http'; export default function () { http.get('http://h/', { timeout: 'soon' }); }`, "timeout soon"},
		{`import http from 'omnik/http'; export default function () { http.get(); }`, "the first argument must be the URL"},
		{`import http from 'omnik/http'; export default function () { http.get('http://h/', { timeout: Infinity }); }`, "timeout Infinity"},
		{`import http from 'omnik/http'; export default function () { http.get('http://h/', { timeout: 1e20 }); }`, "timeout 100000000000000000000"},
		{`import http from 'omnik/http'; export default function () { http.get('http://h/', { timeout: '9999h' }); }`, "timeout 9999h"},
		{`import http from 'omnik/http'; export default function () { http.request(undefined, 'http://h/'); }`, "undefined is not an HTTP method"},
		{`import http from 'omnik/http'; export default async function () { await http.asyncRequest('GET /', 'http://h/'); }`, "GET / is not an HTTP method"},
	} {
		_, _, err := runScript(t, env{}, tc.src)
		if err == nil || !strings.Contains(js.Exception(err), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.src, err, tc.want)
		}
	}
}

// A blocking call keeps the VU's loop running: the server answers only once a timer
// callback, armed before the call, has run.
func TestBlockingCallKeepsTheLoopRunning(t *testing.T) {
	t.Parallel()
	fired := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-fired:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	release := func(vu *js.VU) (*js.Exports, error) {
		return &js.Exports{Named: map[string]any{"release": func() { close(fired) }}}, nil
	}
	mustRun(t, env{srv: srv, modules: map[string]js.Module{"omnik/release": release}}, `import http from 'omnik/http';
import { release } from 'omnik/release';
export default function () {
  setTimeout(release, 1);
  const r = http.get('/', { timeout: '20s' });
  globalThis.ok = r.ok ? 'ok' : r.error;
}`)
}

// The end of the iteration cancels a call in flight, which still counts.
func TestRunStopCancelsCallsInFlight(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	for _, call := range []string{"http.get('/')", "await http.asyncRequest('GET', '/')"} {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		start := time.Now()
		k, _, err := runScript(t, env{srv: srv, ctx: ctx}, `import http from 'omnik/http';
export default async function () { `+call+`; }`)
		cancel()
		if err == nil {
			t.Errorf("%s: the iteration was not interrupted", call)
		}
		// The request's own timeout is a minute: ending well before it means the run's stop ended the call.
		if time.Since(start) > DefaultTimeout/2 {
			t.Errorf("%s: took %v", call, time.Since(start))
		}
		// Cut off by the run: interrupted, not a failure a threshold on http_req_failed would see.
		if n, f, reqs := len(k.of("http_reqs_interrupted")), k.of("http_req_failed"), k.of("http_reqs"); n != 1 || len(f) != 0 || len(reqs) != 0 {
			t.Errorf("%s: %d interrupted, failed %+v, reqs %+v; want one interrupted and nothing else", call, n, f, reqs)
		}
	}
}

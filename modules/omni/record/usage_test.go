package record

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
)

// The client's count stands in only where the server reported no prompt tokens, and the
// record says which one it holds.
func TestPromptTokensFallBackToTheDataset(t *testing.T) {
	t.Parallel()
	server := NewBuilder(EndpointChat, time.Unix(0, 0))
	server.OnUsage(chunk.Usage{PromptTokens: 40})
	for _, tc := range []struct {
		name       string
		usage      Usage
		n          int
		wantPrompt int
		wantSource string
	}{
		{"server reported", server.r.Usage, 960, 40, PromptFromServer},
		{"server reported, no client count", server.r.Usage, 0, 40, PromptFromServer},
		{"server silent", Usage{}, 960, 960, PromptFromDataset},
		{"nothing to fall back to", Usage{}, 0, 0, ""},
	} {
		u := tc.usage
		u.ResolvePrompt(tc.n)
		if u.Prompt != tc.wantPrompt || u.PromptSource != tc.wantSource {
			t.Errorf("%s: prompt %d from %q, want %d from %q", tc.name, u.Prompt, u.PromptSource, tc.wantPrompt, tc.wantSource)
		}
	}
}

// prompt_tokens_source is an optional key of usage: written when known, read back, and a
// record without it (an older file) still decodes.
func TestPromptTokensSourceInRecordFiles(t *testing.T) {
	t.Parallel()
	in := &Record{Endpoint: EndpointSpeech, Status: 200, Start: time.Unix(0, 5).UTC(), Usage: Usage{Prompt: 960, PromptSource: PromptFromDataset}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"prompt_tokens_source":"dataset"`) {
		t.Errorf("no prompt_tokens_source in %s", b)
	}
	out, err := Decode(b)
	if err != nil || out.Usage != in.Usage {
		t.Errorf("round trip: %+v, %v; want %+v", out.Usage, err, in.Usage)
	}
	old, err := Decode([]byte(`{"schema":"omnik.record/v2","endpoint":"speech","start":"2026-01-01T00:00:00Z","e2el_ms":1,"ok":true,"usage":{"prompt_tokens":3}}`))
	if err != nil || old.Usage.Prompt != 3 || old.Usage.PromptSource != "" {
		t.Errorf("a record without the key: %+v, %v", old, err)
	}
}

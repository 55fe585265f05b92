package chunk

import (
	"reflect"
	"strings"
	"testing"
)

// public drops Decode's reusable buffers so results compare by content.
func public(c Chunk) Chunk {
	c.scratch, c.spans, c.stages, c.usages = nil, nil, stageCache{}, usageBatch{}
	if len(c.Choices) == 0 {
		c.Choices = nil // Decode keeps the backing array of earlier chunks
	}
	return c
}

// slow decodes b with encoding/json alone, the reference for the fast paths.
func slow(t testing.TB, b []byte) (Chunk, error) {
	t.Helper()
	var c Chunk
	err := c.decode(b)
	return public(c), err
}

func TestLargeStringsMatchThePlainDecoder(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("QUJD", 600)
	esc := strings.Repeat(`a\"b\\`, 300)
	bodies := []string{
		`{"choices":[{"delta":{"content":"` + big + `"}}],"modality":"audio"}`,
		`{"choices":[{"index":0,"message":{"content":"` + esc + `"}},{"index":0,"message":{"content":null,"audio":{"data":"` + big + `","transcript":"~"}}}]}`,
		`{"data":[{"b64_json":"` + big + `"},{"url":"data:image/png;base64,` + big + `"}],"note":"~"}`,
		`{"choices":[{"delta":{"content":[{"type":"image_url","image_url":{"url":"` + big + `"}}]}}]}`,
		`{"type":"speech.audio.delta","audio":"` + big + `"}`,
		`{"type":"speech.audio.delta","delta":"` + big + `","` + big + `":1}`,
		`{"error":{"message":"` + big + `","type":"t"}}`,
		`{"prompt_text":"` + big + `","choices":[]}`,
		`{"choices":[{"delta":{"content":"` + big + `"}}],"broken":`,
	}
	for i, s := range bodies {
		want, werr := slow(t, []byte(s))
		var got Chunk
		err := Decode([]byte(s), &got)
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(public(got), want) {
			t.Errorf("body %d: fast path differs: %v vs %v", i, err, werr)
		}
	}
}

func TestRepeatedStageMetricsAreReused(t *testing.T) {
	t.Parallel()
	a := `{"thinker":{"stage_id":0,"stage_name":"thinker","vllm_itls_ms":[1,2,3]}}`
	b := `{"thinker":{"stage_id":0,"stage_name":"thinker","vllm_itls_ms":[1,2,3]},"talker":{"stage_id":1,"stage_name":"talker"}}`
	body := func(sm string) string {
		return `{"id":"c","choices":[{"delta":{"content":"x"}}],"metrics":{"stage_metrics":` + sm + `,"num_tokens_out":3}}`
	}
	var c Chunk
	var prev map[string]Stage
	for i, step := range []struct {
		body   string
		reused bool
	}{
		{body(a), false},
		{body(a), true},
		{body(a), true},
		{body(b), false},
		{`{"id":"c","metrics":null}`, false},
		{body(b), false},
		{strings.Replace(body(b), `"stage_metrics":`, `"stage_metrics": `, 1), true},
	} {
		if err := Decode([]byte(step.body), &c); err != nil {
			t.Fatal(err)
		}
		want, _ := slow(t, []byte(step.body))
		if !reflect.DeepEqual(public(c), want) {
			t.Fatalf("step %d: %+v, want %+v", i, public(c).Metrics, want.Metrics)
		}
		var m map[string]Stage
		if c.Metrics != nil {
			m = c.Metrics.StageMetrics
		}
		same := m != nil && prev != nil && reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(prev).UnsafePointer()
		if same != step.reused {
			t.Fatalf("step %d: reused %v, want %v", i, same, step.reused)
		}
		prev = m
	}
}

package omni

import (
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// omni.traceRequest turns a Mooncake entry into a chat request of input_length tokens
// whose blocks follow its hash_ids, passes a recorded body through, and names what is
// missing otherwise.
func TestTraceRequestBuildsTheEntrysRequest(t *testing.T) {
	t.Parallel()
	var prompts []int
	env := scriptEnv{records: func(r *record.Record) { prompts = append(prompts, r.Usage.Prompt) }}
	_, _, vu := runScriptIn(t, env, `import omni from 'omni';
export default async function () {
  const a = omni.traceRequest({ index: 0, input_length: 700, output_length: 5, hash_ids: [10, 11] });
  const b = omni.traceRequest({ index: 1, input_length: 600, output_length: 7, hash_ids: [10, 12] });
  globalThis.words = [a, b].map((r) => r.messages[0].content.split(' ').length);
  globalThis.maxTokens = [a.max_tokens, b.max_tokens];
  const wa = a.messages[0].content.split(' '), wb = b.messages[0].content.split(' ');
  let common = 0;
  while (wa[common] === wb[common]) common++;
  globalThis.common = common;
  globalThis.role = a.messages[0].role;
  const body = { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };
  globalThis.same = omni.traceRequest({ body, input_length: 99 }) === body;
  globalThis.msgs = omni.traceRequest({ messages: [{ role: 'user', content: 'x' }], output_length: 3 }).messages[0].content;
  globalThis.errors = [{ dataset: 3 }, { input_length: 0 }, { input_length: 5, hash_ids: 'x' }, undefined].map((e) => {
    try { omni.traceRequest(e); return 'no error'; } catch (err) { return String(err); }
  });
  await omni.chat(a);
}
`)
	get := func(name string) string { return vu.Runtime().Get(name).String() }
	if get("words") != "700,600" || get("maxTokens") != "5,7" || get("role") != "user" || get("same") != "true" || get("msgs") != "x" {
		t.Errorf("words %s, max_tokens %s, role %s, body passed through %s, messages %s", get("words"), get("maxTokens"), get("role"), get("same"), get("msgs"))
	}
	if c := vu.Runtime().Get("common").ToInteger(); c < 512 || c > 520 {
		t.Errorf("the two prompts share %d leading words, want hash id 10's block of 512", c)
	}
	errs := get("errors")
	for _, want := range []string{"for a dataset entry send dataset[entry.dataset]", "input_length 0: want 1 to", "hash_ids must be an array", "want a trace entry"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors %s\nwant %q", errs, want)
		}
	}
	// The request is sent as built: the simulator counts 4/3 tokens a word (a real
	// tokenizer, one a word of this vocabulary), plus a few for its chat template.
	if len(prompts) != 1 || prompts[0] < 700*4/3 || prompts[0] > 700*4/3+10 {
		t.Errorf("prompt tokens %v, want the simulator's count of 700 words", prompts)
	}
}

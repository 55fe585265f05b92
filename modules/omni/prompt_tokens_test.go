package omni

import (
	"sync"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// A call's promptTokens param fills in the input tokens of a server that reports none
// (speech, images), and never replaces the server's count (chat).
func TestPromptTokensParamFallsBackForServersWithoutUsage(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	usage := map[string]record.Usage{}
	env := scriptEnv{records: func(r *record.Record) {
		mu.Lock()
		defer mu.Unlock()
		usage[r.Endpoint] = r.Usage
	}}
	runScriptIn(t, env, `import omni from 'omni';
export default async function () {
  await omni.audio.speech({ model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', input: 'hello there' }, { promptTokens: 960 });
  await omni.chat({ model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }, { promptTokens: 960 });
}`)
	mu.Lock()
	defer mu.Unlock()
	if u := usage[record.EndpointSpeech]; u.Prompt != 960 || u.PromptSource != record.PromptFromDataset {
		t.Errorf("speech: prompt %d from %q, want 960 from the dataset", u.Prompt, u.PromptSource)
	}
	if u := usage[record.EndpointChat]; u.Prompt == 960 || u.Prompt == 0 || u.PromptSource != record.PromptFromServer {
		t.Errorf("chat: prompt %d from %q, want the server's count", u.Prompt, u.PromptSource)
	}
}

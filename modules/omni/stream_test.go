package omni

import (
	"reflect"
	"testing"
)

func TestAudioStreamPacedAgainstSimulator(t *testing.T) {
	t.Parallel()
	k, _, vu := runScript(t, `import omni from 'omni';
export default async function () {
  const cfg = { model: 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice', voice: 'vivian', response_format: 'pcm', split_granularity: 'sentence' };
  const [a, b] = await Promise.all([
    omni.audio.stream({ ...cfg, input: ['Hello there. ', 'How are ', 'you today?'] }, { pace: { intervalMs: 20 } }),
    omni.audio.stream({ ...cfg, stream_audio: true, input: 'One two three. Four five.' }, { pace: { tokensPerSecond: 200 }, tags: { kind: 'words' } }),
  ]);
  globalThis.a = JSON.stringify(a); globalThis.b = JSON.stringify(b);
  globalThis.ok = [a, b].every((r) => r.ok && r.utterances.length === 2 && r.audio.duration > 0 &&
    r.timings.audioTtfp > 0 && r.utterances.every((u) => u.ttfp > 0 && u.duration > 0 && u.rtf > 0 && u.done >= u.firstAudio)) ? 'ok' : 'bad';
}`)
	rt := vu.Runtime()
	if rt.Get("ok").String() != "ok" {
		t.Fatalf("results:\n%s\n%s", rt.Get("a"), rt.Get("b"))
	}
	if n := len(k.values("requests", "endpoint", "audio_stream")); n != 2 {
		t.Errorf("requests{endpoint:audio_stream} samples = %d, want 2", n)
	}
	if n := len(k.values("utterance_ttfp", "modality", "audio")); n != 4 {
		t.Errorf("utterance_ttfp samples = %d, want one per sentence (4)", n)
	}
	if n := len(k.values("audio_ttfp", "kind", "words")); n != 1 {
		t.Errorf("audio_ttfp{kind:words} samples = %d, want 1", n)
	}
}

func TestAudioStreamFailuresResolveWithKind(t *testing.T) {
	t.Parallel()
	k, _, vu := runScript(t, `import omni from 'omni';
export default async function () {
  const tts = 'Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice';
  const rs = await Promise.all([
    omni.audio.stream({ model: tts, response_format: 'mp3', input: 'Hi.' }),
    omni.audio.stream({ model: tts, input: 'Hi.' }, { headers: { 'X-Omnik-Mock-Fault': 'http503' } }),
    omni.audio.stream({ model: tts, response_format: 'pcm', stream_audio: true, input: 'Hello there, a long sentence.' },
      { headers: { 'X-Omnik-Mock-Fault': 'error-event,after=1' } }),
  ]);
  globalThis.got = rs.map((r) => [r.ok, r.status, r.error && r.error.kind].join(' ')).join(', ');
}`)
	want := "false 101 stream_error_event, false 503 http_status, false 101 stream_error_event"
	if got := vu.Runtime().Get("got").String(); got != want {
		t.Errorf("results = %s, want %s", got, want)
	}
	if n := len(k.values("requests_failed", "error", "stream_error_event")); n != 2 {
		t.Errorf("requests_failed{error:stream_error_event} = %d samples, want 2", n)
	}
}

func TestWordsKeepTheText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"Hello big world.": {"Hello ", "big ", "world."},
		"  lead, trail  ":  {"  lead, ", "trail  "},
		"one":              {"one"},
		"":                 nil,
	} {
		if got := words(in); !reflect.DeepEqual(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

package chunk

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// Chunks as the repository's own servers send them.
var (
	e2eChunk      = `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1760000000,"model":"bench","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":64,"total_tokens":70,"completion_tokens":6},"modality":"text"}`
	e2eUsage      = `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1760000000,"model":"bench","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":64,"total_tokens":320,"completion_tokens":256},"modality":"text"}`
	e2eCompletion = `{"id":"chatcmpl-7","object":"chat.completion","created":1760000000,"model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat(" tok", 300) + `"},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":64,"total_tokens":364,"completion_tokens":300}}`
	streamChunk   = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1760000000,"model":"bench","choices":[{"index":0,"delta":{"content":"1764633600123456789 "},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":813,"completion_tokens":1},"modality":"text","metrics":null}`
	// The simulator marshals maps, so its keys come sorted.
	mockStop       = `{"id":"chatcmpl-m","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"delta":{},"finish_reason":"stop","index":0}]}`
	mockFinal      = `{"id":"chatcmpl-m","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":9,"total_tokens":30,"completion_tokens":21}}`
	mockCompletion = `{"choices":[{"finish_reason":"stop","index":0,"logprobs":null,"message":{"content":"Hi there","role":"assistant"},"stop_reason":null},{"finish_reason":"stop","index":0,"logprobs":null,"message":{"audio":{"data":"UklGRg==","expires_at":86401,"id":"audio-1","transcript":""},"content":null,"role":"assistant"},"stop_reason":null}],"created":1,"id":"chatcmpl-m","metrics":null,"model":"m","object":"chat.completion","usage":{"prompt_tokens":9,"total_tokens":30,"completion_tokens":21}}`
	speechDelta    = `{"type":"speech.audio.delta","audio":"AAAA","response_format":"pcm"}`
	speechDone     = `{"type":"speech.audio.done","usage":{"input_tokens":119,"output_tokens":77,"total_tokens":196,"input_token_details":{"text_tokens":18}}}`
	arDelta        = `{"object":"image.edit.chunk","type":"ar_delta","delta":"<think>","index":0,"created":1,"model":"m","metrics":null}`
	pretty         = "\r\n {\n\t\"id\" : \"c\" ,\"choices\" : [ { \"index\" : 2 , \"delta\" : { \"content\" : \"x\" } } , null ] , \"usage\" : null , \"extra\" : [ 1 , -0.5e+3 , true , false , { } , [ ] ] }\n"
)

func bigAudioChunk() string { return string(audioChunk()) }

// exported is c without the buffers Decode keeps, for comparing two fresh decodes.
func exported(c Chunk) Chunk {
	c.scratch, c.spans, c.stages, c.usages = nil, nil, stageCache{}, usageBatch{}
	return c
}

func TestFastPathTakesCommonShapes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("QUJD", 300)
	tests := []struct {
		name, body string
		fast       bool
	}{
		{"text delta with usage", benchText, true},
		{"text delta", omniText, true},
		{"role chunk", omniRole, true},
		{"bare finish", omniBare, true},
		{"final usage", omniFinal, true},
		{"e2e chunk", e2eChunk, true},
		{"e2e usage", e2eUsage, true},
		{"e2e completion", e2eCompletion, true},
		{"streaming bench chunk", streamChunk, true},
		{"simulator stop", mockStop, true},
		{"simulator final", mockFinal, true},
		{"simulator completion", mockCompletion, true},
		{"audio with large base64", bigAudioChunk(), true},
		{"modality image", omniImage, true},
		{"image with large data URL", `{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + big + `"}}]}}],"modality":"image"}`, true},
		{"openai audio", oaiAudio, true},
		{"speech delta", speechDelta, true},
		{"speech done", speechDone, true},
		{"ar_delta", arDelta, true},
		{"whitespace", pretty, true},
		{"skipped escapes", `{"id":"c","model":"a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`, true},
		{"escaped content", `{"choices":[{"delta":{"content":"a\"b\n"}}]}`, true},
		{"escaped large content", `{"choices":[{"delta":{"content":"` + big + `\n"}}]}`, true},
		{"escaped id", `{"id":"\u0041"}`, true},
		{"invalid UTF-8 id", "{\"id\":\"\xff\"}", true},
		{"large content with a control byte", `{"choices":[{"delta":{"content":"` + big + "\x01" + `"}}]}`, true},

		{"stage metrics", omniStats, true},
		{"empty metrics", `{"metrics":{}}`, true},
		{"metrics of the wrong type", `{"metrics":{"num_tokens_in":"x"}}`, false},
		{"metrics not an object", `{"metrics":[1]}`, false},
		{"error object", `{"error":{"message":"boom","type":"t","code":500}}`, false},
		{"error string", `{"type":"error","error":"no such model"}`, false},
		{"vllm error response", `{"object":"error","message":"x","type":"BadRequestError","code":400}`, false},
		{"null message", `{"message":null}`, false},
		{"detail", `{"detail":"Not Found"}`, false},
		{"images response", `{"data":[{"b64_json":"iVBOR"}]}`, false},
		{"stage durations", `{"stage_durations":{"a_ms":1}}`, false},
		{"duplicate id", `{"id":"a","id":"b"}`, false},
		{"duplicate content", `{"choices":[{"delta":{"content":"a","content":"b"}}]}`, false},
		{"folded key", `{"ID":"a"}`, false},
		{"folded choice key", `{"choices":[{"Delta":{"content":"a"}}]}`, false},
		{"non-ASCII key", `{"ıd":"a"}`, false},
		{"escaped key", `{"\u0069d":"a"}`, false},
		{"float tokens", `{"usage":{"prompt_tokens":1.0}}`, false},
		{"exponent tokens", `{"usage":{"prompt_tokens":1e2}}`, false},
		{"huge tokens", `{"usage":{"prompt_tokens":123456789012345678901}}`, false},
		{"string tokens", `{"usage":{"prompt_tokens":"1"}}`, false},
		{"content object", `{"choices":[{"delta":{"content":{}}}]}`, false},
		{"choices object", `{"choices":{}}`, false},
		{"deep nesting", `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, false},
		{"control byte in escaped content", "{\"choices\":[{\"delta\":{\"content\":\"\\n\x01\"}}]}", false},
		{"bad escape in content", `{"choices":[{"delta":{"content":"\x"}}]}`, false},
		{"control byte in small content", "{\"choices\":[{\"delta\":{\"content\":\"a\x01\"}}]}", false},
		{"control byte in large content, large skipped string", `{"choices":[{"delta":{"content":"` + big + "\x01" + `"}}],"prompt_text":"` + big + `"}`, false},
		{"top-level null", `null`, false},
		{"trailing garbage", `{"id":"c"} x`, false},
		{"trailing comma", `{"id":"c",}`, false},
		{"truncated", `{"choices":[{"delta":`, false},
		{"empty", ``, false},
	}
	for _, tc := range tests {
		var c Chunk
		if got := c.fast([]byte(tc.body)); got != tc.fast {
			t.Errorf("%s: fast path took it: %v, want %v", tc.name, got, tc.fast)
			continue
		}
		if !tc.fast {
			continue
		}
		var want Chunk
		if err := want.decodeReflect([]byte(tc.body)); err != nil {
			t.Errorf("%s: slow path fails: %v", tc.name, err)
		} else if !reflect.DeepEqual(exported(c), exported(want)) {
			t.Errorf("%s: fast path differs:\n%+v\nwant\n%+v", tc.name, exported(c), exported(want))
		}
	}
}

// FuzzFastMatchesDecode checks that whatever the fast path accepts, the slow path decodes
// to the same Chunk, into a fresh Chunk and into one that held another chunk.
func FuzzFastMatchesDecode(f *testing.F) {
	big := strings.Repeat("QUJD", 300)
	for _, s := range []string{omniRole, omniText, omniAudio, omniImage, omniFinal, omniBare, omniStats, oaiAudio, benchText,
		e2eChunk, e2eUsage, e2eCompletion, streamChunk, mockStop, mockFinal, mockCompletion, speechDelta, speechDone, arDelta, pretty,
		`{"id":"a","id":"b"}`, `{"ID":"a","Choices":[{"INDEX":1,"Delta":{"Content":"x","ROLE":"r"}}],"Usage":{"Prompt_Tokens":1}}`,
		`{"ſtage_durations":1,"K":2,"ıd":"x","İd":"y"}`, `{"id":"\u00e9\ud83d\ude00","choices":[{"delta":{"content":"\u0000"}}]}`,
		"{\"id\":\"\xff\xfe\",\"choices\":[{\"delta\":{\"content\":\"\xc3\x28\"}}]}", `{"id":"é","modality":"画像"}`,
		`{"usage":{"prompt_tokens":-0,"completion_tokens":9223372036854775807,"total_tokens":1.5,"input_tokens":1e3,"output_tokens":-1E-2}}`,
		`{"usage":{"prompt_tokens":01}}`, `{"usage":{"peak_memory_mb":"12"},"peak_memory_mb":1.5e3}`, `{"x":[1,-1,0.0,-0e0,1E+9,true,false,null,"s",{}]}`,
		`{"choices":null,"usage":null,"metrics":null,"error":null,"detail":null,"data":null,"message":null,"code":null,"audio":null,"delta":null}`,
		`{"choices":[null,{"index":null,"delta":null,"message":null,"finish_reason":null}],"id":null}`,
		`{"choices":[{"delta":{"role":null,"content":null,"audio":null}}]}`, `{"choices":[{"delta":{"content":[null,{"type":null,"text":null,"image_url":null}]}}]}`,
		`{"x":` + strings.Repeat(`{"a":[`, 40) + strings.Repeat(`]}`, 40) + `}`, `{"x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
		`{"choices":[{"delta":{"content":"` + big + `"}}],"modality":"audio"}`,
		`{"choices":[{"delta":{"content":"` + big + "\x01\xff" + `"}}],"x":"` + big + `"}`,
		`{"choices":[{"delta":{"content":"` + big + "\x01" + `"}}],"` + big + `":1}`,
		`{"choices":[{"message":{"audio":{"id":"a","data":"` + big + `","transcript":"` + big + `"}}}]}`,
		`{"type":"speech.audio.delta","audio":"` + big + "\t" + `","delta":"` + big + `"}`,
		`{"choices":[{"delta":{"content":[{"type":"image_url","image_url":{"url":"` + big + `","URL":"x"},"text":"` + big + `"}]}}]}`,
		`{"id":"` + big + `","choices":[{"delta":{"content":"` + big + "\n" + `"}}]}`,
		`{"choices":[{"delta":{"content":"` + strings.Repeat(`a\"`, 600) + `"}}]}`,
		`{"id":"c"} `, `{"id":"c"}{}`, ` {} `, `[]`, `"x"`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"\x"}`, `{"a":"\u12G4"}`, `{"a":tru}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`,
	} {
		f.Add([]byte(s))
	}
	for _, b := range corpus(f, "FuzzDecode") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Raw bytes rarely make a document the fast path takes, so the same bytes also
		// drive a generator of chunk-shaped documents, nearly valid.
		checkFast(t, b)
		checkFast(t, generate(b))
	})
}

var prior = []byte(`{"id":"chatcmpl-abc","object":"chat.completion.chunk","type":"t","modality":"audio","choices":[{"index":3,"delta":{"role":"assistant","content":"old"},"finish_reason":"stop"},{"index":1,"message":{"content":[{"type":"image_url"}],"audio":{"id":"a"}}}],"usage":{"prompt_tokens":1}}`)

// checkFast checks that if the fast path takes b, the slow path decodes it alike.
func checkFast(t *testing.T, b []byte) {
	t.Helper()
	var got Chunk
	if !got.fast(b) {
		return
	}
	var want Chunk
	if err := want.decodeReflect(b); err != nil {
		t.Fatalf("fast path accepts what Decode rejects: %v\n%q", err, b)
	}
	if !reflect.DeepEqual(exported(got), exported(want)) {
		t.Fatalf("fast path differs:\n%+v\nwant\n%+v\n%q", exported(got), exported(want), b)
	}
	checkAliases(t, b, &got, &want)
	var reused Chunk
	if err := Decode(prior, &reused); err != nil {
		t.Fatal(err)
	}
	if !reused.fast(b) {
		t.Fatalf("fast path depends on what the Chunk held: %q", b)
	}
	// public treats empty choices as nil: a reused Chunk keeps its backing array where
	// a fresh one has none, which both paths do alike.
	if !reflect.DeepEqual(public(reused), public(want)) {
		t.Fatalf("fast path into a used Chunk differs:\n%+v\nwant\n%+v\n%q", public(reused), public(want), b)
	}
}

// Pieces for generate: each struct's keys and the kind of their values, other keys
// (folded, escaped, unknown), and values of every kind, some invalid or for the slow path.
var (
	genFields = map[string][][2]string{
		"chunk": {{"id", "str"}, {"object", "str"}, {"type", "str"}, {"modality", "str"}, {"choices", "choices"}, {"usage", "usage"},
			{"metrics", "any"}, {"audio", "str"}, {"delta", "str"}, {"peak_memory_mb", "any"}, {"error", "any"}, {"data", "any"}},
		"choice":    {{"index", "int"}, {"delta", "message"}, {"message", "message"}, {"finish_reason", "str"}},
		"message":   {{"role", "str"}, {"content", "content"}, {"audio", "audio"}},
		"audio":     {{"id", "str"}, {"data", "str"}, {"transcript", "str"}},
		"part":      {{"type", "str"}, {"text", "str"}, {"image_url", "image_url"}, {"stage_durations", "any"}, {"peak_memory_mb", "any"}},
		"image_url": {{"url", "str"}},
		"usage": {{"prompt_tokens", "int"}, {"completion_tokens", "int"}, {"total_tokens", "int"}, {"input_tokens", "int"},
			{"output_tokens", "int"}, {"peak_memory_mb", "any"}},
	}
	genKeys    = []string{"created", "model", "logprobs", "ID", "Content", "uRl", "ſtage_durations", "\\u0069d", "x", "", "code", "message"}
	genStrings = []string{`""`, `"abc"`, `"stop"`, `"text"`, `"a\"b"`, `"a\\b"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"é"`, "\"\xff\"", "\"\x01\"", `"~"`,
		`"` + strings.Repeat("QUJD", 300) + `"`, `"` + strings.Repeat("QUJD", 300) + "\x1f\xfe" + `"`, `"` + strings.Repeat(`\n`, 600) + `"`}
	genScalars = []string{"null", "true", "false", "0", "-0", "1", "-17", "1.5", "1e2", "-0.0E-1", "01", "9223372036854775807",
		"123456789012345678", "1234567890123456789", "-", "nul"}
	genSpace = []string{"", "", "", " ", "\n", "\t\r "}
)

// generate builds a chunk-like document from src, read as a stream of choices.
func generate(src []byte) []byte {
	g := gen{src: src}
	var out []byte
	out = append(out, g.pick(genSpace)...)
	out = g.value(out, "chunk", 0)
	return append(out, g.pick(genSpace)...)
}

type gen struct {
	src []byte
	at  int
}

func (g *gen) next() int {
	if g.at >= len(g.src) {
		return 0
	}
	g.at++
	return int(g.src[g.at-1])
}

func (g *gen) pick(from []string) string { return from[g.next()%len(from)] }

// value appends a value of kind: mostly what the field holds, sometimes anything.
func (g *gen) value(out []byte, kind string, depth int) []byte {
	if depth > 7 {
		return append(out, "null"...)
	}
	if k := g.next(); k%8 == 7 {
		kind = "any"
	} else if k%8 == 6 && kind != "any" && kind != "chunk" {
		return append(out, "null"...)
	}
	switch kind {
	case "str":
		return append(out, g.pick(genStrings)...)
	case "int":
		return append(out, g.pick(genScalars)...)
	case "choices":
		return g.array(out, "choice", depth)
	case "content":
		if g.next()%2 == 0 {
			return g.array(out, "part", depth)
		}
		return append(out, g.pick(genStrings)...)
	case "any":
		switch g.next() % 4 {
		case 0:
			return g.object(out, "", depth)
		case 1:
			return g.array(out, "any", depth)
		case 2:
			return append(out, g.pick(genStrings)...)
		}
		return append(out, g.pick(genScalars)...)
	}
	return g.object(out, kind, depth)
}

func (g *gen) array(out []byte, elem string, depth int) []byte {
	out = append(out, '[')
	for i := range g.next() % 4 {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, g.pick(genSpace)...)
		out = g.value(out, elem, depth+1)
		out = append(out, g.pick(genSpace)...)
	}
	return append(out, ']')
}

func (g *gen) object(out []byte, kind string, depth int) []byte {
	fields := genFields[kind]
	out = append(out, '{')
	for i := range g.next() % 6 {
		if i > 0 {
			out = append(out, ',')
		}
		key, vkind := g.pick(genKeys), "any"
		if len(fields) > 0 && g.next()%4 != 0 {
			f := fields[g.next()%len(fields)]
			key, vkind = f[0], f[1]
		}
		out = append(out, g.pick(genSpace)...)
		out = append(out, '"')
		out = append(out, key...)
		out = append(out, '"')
		out = append(out, g.pick(genSpace)...)
		out = append(out, ':')
		out = append(out, g.pick(genSpace)...)
		out = g.value(out, vkind, depth+1)
		out = append(out, g.pick(genSpace)...)
	}
	return append(out, '}')
}

// checkAliases checks that the String fields of got alias b, capped at their end, where
// those of want (decoded from b by the slow path) alias b or want's scratch copy, and
// are copies where want's are: String.UnmarshalJSON copies only unescaped values.
func checkAliases(t *testing.T, b []byte, got, want *Chunk) {
	t.Helper()
	in := func(s String, buf []byte) bool {
		at := uintptr(unsafe.Pointer(&s[0])) - uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
		return at < uintptr(len(buf))
	}
	g, w := stringFields(got), stringFields(want)
	for k := range g {
		if len(g[k]) == 0 {
			continue
		}
		aliased := in(w[k], b) || (len(want.scratch) > 0 && in(w[k], want.scratch))
		if in(g[k], b) != aliased || (aliased && cap(g[k]) != len(g[k])) {
			t.Fatalf("%q: aliases the input %v, want %v", g[k], in(g[k], b), aliased)
		}
	}
}

// stringFields lists c's String fields in a fixed order.
func stringFields(c *Chunk) []String {
	out := []String{c.Audio, c.Delta}
	for _, ch := range c.Choices {
		for _, m := range []Message{ch.Delta, ch.Message} {
			out = append(out, m.Content.Text)
			for _, p := range m.Content.Parts {
				out = append(out, p.Text, p.ImageURL.URL)
			}
			if m.Audio != nil {
				out = append(out, m.Audio.Data, m.Audio.Transcript)
			}
		}
	}
	return out
}

// corpus reads the stored inputs of another []byte fuzz target.
func corpus(f *testing.F, target string) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
	var out [][]byte
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		_, lit, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
		lit = strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")")
		s, err := strconv.Unquote(lit)
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		out = append(out, []byte(s))
	}
	return out
}

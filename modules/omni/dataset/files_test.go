package dataset

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestShareGPTTakesFirstHumanTurnAndFiltersAsVLLM(t *testing.T) {
	t.Parallel()
	d, err := Load(Spec{Name: ShareGPT, Path: "testdata/sharegpt.json"})
	if err != nil {
		t.Fatal(err)
	}
	// a1 and a2 (after a gpt greeting) and img pass; "short" (2-token prompt), one turn and
	// no conversations are skipped.
	var prompts []string
	for i := range d.Len() {
		prompts = append(prompts, d.At(i).Prompt[:10])
	}
	if want := []string{"Explain ho", "Write a ha", "Describe t"}; !slices.Equal(prompts, want) {
		t.Fatalf("prompts %q, want %q", prompts, want)
	}
	s := d.At(0)
	if s.PromptLen != EstimateTokens(s.Prompt) || s.OutputTokens != 30 {
		t.Errorf("a1: prompt_len %d (estimate %d), output %d", s.PromptLen, EstimateTokens(s.Prompt), s.OutputTokens)
	}
	if img := d.At(2).Images; len(img) != 1 || img[0].Width != 4 || img[0].Height != 3 || img[0].MIME != "image/png" {
		t.Errorf("img entry: %+v", img)
	}
	fixed, _ := Load(Spec{Name: ShareGPT, Path: "testdata/sharegpt.json", SharegptOutputLen: 3})
	if fixed.At(0).OutputTokens != 3 {
		t.Errorf("--sharegpt-output-len 3 gives %d", fixed.At(0).OutputTokens)
	}
}

func TestCustomReadsPromptsMediaAndExtras(t *testing.T) {
	t.Parallel()
	d, err := Load(Spec{Name: Custom, Path: "testdata/custom.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 5 {
		t.Fatalf("%d samples, want 5 (the blank line skipped)", d.Len())
	}
	if s := d.At(0); s.OutputTokens != 8 || s.PromptLen != 13 || s.Extra != nil {
		t.Errorf("line 1: %+v", s)
	}
	s := d.At(1)
	if s.OutputTokens != DefaultCustomOutputLen || len(s.Images) != 1 || s.Images[0].Width != 4 {
		t.Errorf("line 2: output %d, images %+v", s.OutputTokens, s.Images)
	}
	var extra map[string]any
	if json.Unmarshal(s.Extra, &extra) != nil || extra["category"] != "vision" || extra["meta"].(map[string]any)["src"] != "unit" {
		t.Errorf("line 2 extra %s", s.Extra)
	}
	if a := d.At(2).Audio; len(a) != 1 || a[0].MIME != "audio/wav" || a[0].Duration != 250*time.Millisecond || a[0].SampleRate != 8000 {
		t.Errorf("line 3 audio %+v", a)
	}
	imgs := d.At(3).Images
	if len(imgs) != 2 || imgs[0] != d.At(1).Images[0] || imgs[1].URL != "https://example.com/cat.jpg" || imgs[1].MIME != "image/jpeg" || imgs[1].DataURL() != imgs[1].URL {
		t.Errorf("line 4 images %+v (the file must be shared with line 2)", imgs)
	}
	if s := d.At(4); s.Prompt != "" || !strings.Contains(string(s.Messages), "Be brief.") || s.PromptLen != 6 || s.OutputTokens != 4 {
		t.Errorf("line 5: %+v", s)
	}
}

func TestCustomAcceptsDataURLs(t *testing.T) {
	t.Parallel()
	png := syntheticImage(5, 7, 1).DataURL()
	path := writeFile(t, "d.jsonl", `{"prompt": "look", "images": "`+png+`"}`)
	d, err := Load(Spec{Name: Custom, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if m := d.At(0).Images[0]; m.Width != 5 || m.Height != 7 || m.DataURL() != png {
		t.Errorf("image %dx%d, round trip %v", m.Width, m.Height, m.DataURL() == png)
	}
}

// --custom-output-len N replaces every line's output_tokens, as in vLLM.
func TestCustomOutputLenOverrideReplacesEveryLine(t *testing.T) {
	t.Parallel()
	d, err := Load(Spec{Name: Custom, Path: "testdata/custom.jsonl", CustomOutputLenOverride: 9})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Len() {
		if got := d.At(i).OutputTokens; got != 9 {
			t.Errorf("line %d: output_tokens %d, want 9", i+1, got)
		}
	}
}

// --disable-shuffle: file order, from the start again past the end.
func TestInOrderKeepsTheDatasetOrder(t *testing.T) {
	t.Parallel()
	d, _ := Load(Spec{NumPrompts: 3, RandomInputLen: 4})
	if got := d.InOrder(7); !slices.Equal(got, []int{0, 1, 2, 0, 1, 2, 0}) {
		t.Errorf("InOrder(7) = %v", got)
	}
	if d.InOrder(0) != nil {
		t.Error("n = 0 gives indices")
	}
}

func TestSampleOrderIsASeededShuffleThenOversampled(t *testing.T) {
	t.Parallel()
	d, _ := Load(Spec{NumPrompts: 10, RandomInputLen: 4})
	a, b, c := d.Sample(25, 3), d.Sample(25, 3), d.Sample(25, 4)
	if !slices.Equal(a, b) || slices.Equal(a, c) || len(a) != 25 {
		t.Fatalf("seed 3 twice %v / %v, seed 4 %v", a, b, c)
	}
	for k := 0; k < 20; k += 10 {
		round := slices.Sorted(slices.Values(a[k : k+10]))
		if !slices.Equal(round, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
			t.Errorf("round %d is not a permutation: %v", k/10, a[k:k+10])
		}
	}
	if d.Sample(0, 1) != nil {
		t.Error("n = 0 gives indices")
	}
}

func TestMalformedDatasetsNameFileLineAndReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, kind, file, body string
		want                   string // the whole message, with %s for the path
		line, col              int
	}{
		{"prompt missing", Custom, "custom.jsonl", "{\"prompt\": \"ok\"}\n\n{\"output_tokens\": 5}\n",
			`dataset %s:3: "prompt" is missing`, 3, 0},
		{"syntax error with column", Custom, "c.jsonl", "{\"prompt\": \"a\"}\n{\"prompt\": \"b\",}\n",
			`dataset %s:2:16: invalid character '}' looking for beginning of object key string`, 2, 16},
		{"line not an object", Custom, "c.jsonl", "[1, 2]\n", `dataset %s:1: the line is an array, want a JSON object`, 1, 0},
		{"prompt not a string", Custom, "c.jsonl", `{"prompt": 42}`, `dataset %s:1: "prompt" is 42, want a string`, 1, 0},
		{"output tokens zero", Custom, "c.jsonl", `{"prompt": "a", "output_tokens": 0}`, `dataset %s:1: "output_tokens" is 0, want a positive integer`, 1, 0},
		{"output tokens fraction", Custom, "c.jsonl", `{"prompt": "a", "output_tokens": 2.5}`, `dataset %s:1: "output_tokens" is 2.5, want a positive integer`, 1, 0},
		{"image file missing", Custom, "c.jsonl", `{"prompt": "a", "images": ["nope.png"]}`, `dataset %s:1: "images": image "nope.png": open `, 1, 0},
		{"image not an image", Custom, "c.jsonl", `{"prompt": "a", "images": ["c.jsonl"]}`, `dataset %s:1: "images": image "c.jsonl": content is text/plain; charset=utf-8, not image`, 1, 0},
		{"images wrong type", Custom, "c.jsonl", `{"prompt": "a", "images": {"x": 1}}`, `dataset %s:1: "images" is an object, want a string or an array of strings`, 1, 0},
		{"bad data URL", Custom, "c.jsonl", `{"prompt": "a", "audio": "data:audio/wav;base64,@@@"}`, `dataset %s:1: "audio": audio "data:audio/wav;base64,@@@": data URL: illegal base64`, 1, 0},
		{"messages without role", Custom, "c.jsonl", `{"messages": [{"content": "hi"}]}`, `dataset %s:1: "messages"[0]: "role" is missing`, 1, 0},
		{"empty file", Custom, "c.jsonl", "\n\n", `dataset %s: no prompts (want one JSON object a line)`, 0, 0},
		{"sharegpt not an array", ShareGPT, "s.json", `{"conversations": []}`, `dataset %s:1:1: want a JSON array of conversations`, 1, 1},
		{"sharegpt value not a string", ShareGPT, "s.json", "[\n {\"conversations\": [{\"from\": \"human\", \"value\": \"four words are here\"}]},\n {\"conversations\": [{\"from\": \"human\", \"value\": 7}]}\n]",
			`dataset %s:3:48: entry 1: "conversations.value" is a number, want a string`, 3, 48},
		{"sharegpt syntax error", ShareGPT, "s.json", "[\n  {\"conversations\": []},\n  {\"conversations\": [}\n]",
			`dataset %s:3:22: entry 1: invalid character '}' looking for beginning of value`, 3, 22},
		{"sharegpt truncated", ShareGPT, "s.json", "[\n {\"conversations\": [", `dataset %s:2:21: entry 0: unexpected end of file`, 2, 21},
		{"sharegpt trailing data", ShareGPT, "s.json", "[]\nx", `dataset %s:2:1: unexpected data after the array`, 2, 1},
		{"sharegpt nothing usable", ShareGPT, "s.json", `[{"conversations": [{"from": "human", "value": "hi"}]}]`,
			`dataset %s: no conversation passes the length filter (prompt 4–1024 tokens, reply ≥ 4, together ≤ 2048)`, 0, 0},
		{"missing file", Custom, "", "", `dataset %s: open `, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "absent.jsonl")
			if tt.file != "" {
				path = writeFile(t, tt.file, tt.body)
			}
			_, err := Load(Spec{Name: tt.kind, Path: path})
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			want := strings.ReplaceAll(tt.want, "%s", path)
			if !strings.HasPrefix(err.Error(), want) || de.File != path || de.Line != tt.line || de.Col != tt.col {
				t.Errorf("err = %q (line %d col %d)\nwant %q (line %d col %d)", err, de.Line, de.Col, want, tt.line, tt.col)
			}
		})
	}
}

// writeFile writes body to name in a fresh directory and returns the path.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

package dataset

import (
	"errors"
	"os"
	"testing"
)

// checkParse holds for any input: a parser either returns samples or an *Error placed
// inside the file, and never panics.
func checkParse(t *testing.T, data []byte, samples []Sample, err error) {
	t.Helper()
	if err != nil {
		var de *Error
		if !errors.As(err, &de) {
			t.Fatalf("foreign error %T %v", err, err)
		}
		if de.Line < 0 || de.Col < 0 || de.Line > len(data)+1 {
			t.Fatalf("position %d:%d outside %d bytes", de.Line, de.Col, len(data))
		}
		return
	}
	if len(samples) == 0 {
		t.Fatal("no samples and no error")
	}
	for _, s := range samples {
		if s.Prompt == "" && s.Messages == nil {
			t.Fatalf("sample without prompt or messages: %+v", s)
		}
	}
}

func FuzzCustom(f *testing.F) {
	seed, _ := os.ReadFile("testdata/custom.jsonl")
	f.Add(seed)
	f.Add([]byte(`{"prompt": "a", "output_tokens": 3, "x": [1, {"y": null}]}` + "\n\n" + `{"prompt": ""}`))
	f.Add([]byte(`{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}`))
	f.Add([]byte(`{"prompt": "a", "images": "data:image/png;base64,iVBORw0KGgo="}`))
	f.Add([]byte("{\"prompt\": \"\xff\"}\r\n{"))
	spec := Spec{Path: "testdata/fuzz.jsonl", CustomOutputLen: 1}
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := parseCustom(spec, data, newMediaLoader(spec.Path))
		checkParse(t, data, samples, err)
	})
}

func FuzzShareGPT(f *testing.F) {
	seed, _ := os.ReadFile("testdata/sharegpt.json")
	f.Add(seed)
	f.Add([]byte(`[{"conversations": [{"from": "human", "value": "one two three four"}, {"from": "gpt", "value": "five six seven eight"}]}]`))
	f.Add([]byte(`[1, "x", null, {"conversations": null}]`))
	f.Add([]byte("[\n{\"conversations\": [{\"from\": \"human\", \"value\": 7}]}"))
	f.Add([]byte(`[] []`))
	spec := Spec{Path: "testdata/fuzz.json"}
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := parseShareGPT(spec, data, newMediaLoader(spec.Path))
		checkParse(t, data, samples, err)
	})
}

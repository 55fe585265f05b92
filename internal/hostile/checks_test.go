//go:build linux

package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// resultLine is one line of an --out json file; a Record line's data is a request.
type resultLine struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

type requestRecord struct {
	Endpoint string `json:"endpoint"`
	OK       bool   `json:"ok"`
	Error    *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	Anomalies []struct {
		Kind string `json:"kind"`
	} `json:"anomalies"`
	TextChunks []struct {
		Bytes int `json:"bytes"`
	} `json:"text_chunks"`
	Audio struct {
		Frames int64 `json:"frames"`
	} `json:"audio"`
	Images struct {
		Count  int `json:"count"`
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"images"`
}

// content is what a request received, to compare with the healthy response.
type content struct {
	chunks, textBytes int
	frames            int64
	images, w, h      int
}

func (r *requestRecord) content() content {
	c := content{chunks: len(r.TextChunks), frames: r.Audio.Frames, images: r.Images.Count, w: r.Images.Width, h: r.Images.Height}
	for _, tc := range r.TextChunks {
		c.textBytes += tc.Bytes
	}
	return c
}

// healthyContent is what the healthy responses hold (base.go): text "Hello there." in
// three pieces, 0.1 s audio pieces, one 64x48 image.
var healthyContent = map[Endpoint]content{
	ChatStream:  {chunks: 3, textBytes: 12, frames: 2 * pieceFrames},
	ChatJSON:    {chunks: 1, textBytes: 12, frames: pieceFrames},
	Images:      {images: 1, w: imageW, h: imageH},
	ImagesEdit:  {chunks: 3, textBytes: 12, images: 1, w: imageW, h: imageH},
	SpeechRaw:   {frames: 4 * pieceFrames},
	SpeechSSE:   {frames: 4 * pieceFrames},
	AudioStream: {frames: 4 * pieceFrames},
}

// recordEndpoint is the record's endpoint name for each of the matrix's endpoints.
var recordEndpoint = map[Endpoint]string{ChatStream: record.EndpointChat, ChatJSON: record.EndpointChat,
	Images: record.EndpointImages, ImagesEdit: record.EndpointImageEdit, SpeechRaw: record.EndpointSpeech,
	SpeechSSE: record.EndpointSpeech, AudioStream: record.EndpointAudioStream}

// checkRecords reads the result file: whole (a Run line first, an End line last), one
// record per request, each failed with the kind wanted and carrying the anomalies.
func checkRecords(t *testing.T, path string, c cell) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var types []string
	var recs []requestRecord
	for i, l := range lines {
		var rl resultLine
		if err := json.Unmarshal(l, &rl); err != nil {
			t.Fatalf("%s line %d does not parse: %v", path, i+1, err)
		}
		types = append(types, rl.Type)
		if rl.Type != "Record" {
			continue
		}
		var rec requestRecord
		if err := json.Unmarshal(rl.Data, &rec); err != nil {
			t.Fatalf("record on line %d does not parse: %v", i+1, err)
		}
		checkNumbers(t, fmt.Sprintf("record %d", len(recs)), rl.Data)
		recs = append(recs, rec)
	}
	if types[0] != "Run" || types[len(types)-1] != "End" {
		t.Errorf("result file is not whole: first line %s, last %s", types[0], types[len(types)-1])
	}
	if len(recs) != iterations {
		t.Fatalf("%d records, want %d", len(recs), iterations)
	}
	wantAnomalies := slices.Sorted(slices.Values(c.want.anomalies))
	for i, rec := range recs {
		kind, msg := "", ""
		if rec.Error != nil {
			kind, msg = rec.Error.Kind, rec.Error.Message
		}
		var anomalies []string
		for _, a := range rec.Anomalies {
			anomalies = append(anomalies, a.Kind)
		}
		slices.Sort(anomalies)
		if i == 0 {
			t.Logf("first request: ok %v, kind %q (%s), anomalies %v", rec.OK, kind, msg, anomalies)
		}
		switch {
		case rec.Endpoint != recordEndpoint[c.ep]:
			t.Errorf("record %d: endpoint %q, want %q", i, rec.Endpoint, recordEndpoint[c.ep])
		case kind != c.want.kind || rec.OK != (kind == ""):
			t.Errorf("record %d: ok %v, kind %q (%s), want kind %q", i, rec.OK, kind, msg, c.want.kind)
		case !slices.Equal(anomalies, wantAnomalies):
			t.Errorf("record %d: anomalies %v, want %v", i, anomalies, wantAnomalies)
		case rec.OK && !c.want.changed && rec.content() != healthyContent[c.ep]:
			t.Errorf("record %d: received %+v, the healthy response holds %+v", i, rec.content(), healthyContent[c.ep])
		}
	}
}

// checkSummary reads the summary export: whole, its numbers finite and not negative,
// every request counted, each failure under its kind.
func checkSummary(t *testing.T, path, kind string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkNumbers(t, "summary", data)
	var sum struct {
		Schema  string `json:"schema"`
		Metrics map[string]struct {
			Values map[string]float64 `json:"values"`
		} `json:"metrics"`
		Sections struct {
			Omni struct {
				All struct {
					Completed int `json:"completed"`
				} `json:"all"`
				Failures map[string]int `json:"failures_by_error"`
			} `json:"omni"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatalf("summary does not parse: %v", err)
	}
	if sum.Schema != "omnik.summary/v1" {
		t.Errorf("summary schema %q", sum.Schema)
	}
	if n := sum.Metrics["requests"].Values["count"]; n != iterations {
		t.Errorf("summary counts %v requests, want %d", n, iterations)
	}
	wantFailures := map[string]int{}
	completed := iterations
	if kind != "" {
		wantFailures[kind], completed = iterations, 0
	}
	if got := sum.Sections.Omni.Failures; !maps.Equal(got, wantFailures) {
		t.Errorf("summary failures by error %v, want %v", got, wantFailures)
	}
	if sum.Sections.Omni.All.Completed != completed {
		t.Errorf("summary says %d completed, want %d", sum.Sections.Omni.All.Completed, completed)
	}
}

// checkNumbers reads a JSON document token by token (a record may hold a hundred
// thousand chunks: no tree of it is built): every number finite and not negative, except the
// running token count of a chunk without usage, -1 by definition.
func checkNumbers(t *testing.T, what string, data []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// keys holds, for each open container, the key being read ("[" in an array);
	// expectKey says the next string of the innermost object is a key.
	var keys []string
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s does not parse: %v", what, err)
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				keys, expectKey = append(keys, string(v)), v == '{'
				continue
			}
			keys = keys[:len(keys)-1]
		case string:
			if expectKey {
				keys[len(keys)-1], expectKey = v, false
				continue
			}
		case json.Number:
			f, err := v.Float64()
			key := keys[len(keys)-1]
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || (f < 0 && !(f == -1 && key == "tokens")) {
				t.Errorf("%s: %s = %v", what, strings.Join(keys, "."), v)
			}
		}
		// A value ended: in an object, a key comes next.
		expectKey = len(keys) > 0 && keys[len(keys)-1] != "["
	}
}

// checkHTML checks the HTML report was written whole, reading only its end.
func checkHTML(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	end := make([]byte, 64)
	n, _ := f.ReadAt(end, max(0, fileSize(t, f)-int64(len(end))))
	if !bytes.HasSuffix(bytes.TrimSpace(end[:n]), []byte("</html>")) {
		t.Errorf("the HTML report does not end with </html>: …%q", end[:n])
	}
}

func fileSize(t *testing.T, f *os.File) int64 {
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

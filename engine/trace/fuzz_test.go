package trace

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParse: any input either fails with a located error or gives a sorted, non-empty
// trace whose every entry reads back as an object with its place.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"offset_ms": 0, "body": {"messages": []}, "session": "a"}` + "\n" + `{"offset_ms": 5, "session": "a"}`,
		`{"timestamp": 105, "input_length": 1800, "output_length": 26, "hash_ids": [0, 3]}`,
		`{"timestamp": 1e400}`, `{"offset_ms": -0}`, "\n\n", `{"offset_ms": 1, "session": 1.5e3}`, `{"offset_ms": 3}{"offset_ms": 4}`,
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "mooncake")
	}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		tr, err := Parse(bytes.NewReader(data), "f.jsonl", format)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not a *trace.Error", err, err)
			}
			return
		}
		if len(tr.Entries) == 0 {
			t.Fatal("no entries and no error")
		}
		for i, e := range tr.Entries {
			if e.Offset < 0 || e.Offset > MaxOffset || i > 0 && e.Offset < tr.Entries[i-1].Offset || e.Line < 1 {
				t.Fatalf("entry %d: %+v", i, e)
			}
			if e.Session >= int32(len(tr.Sessions)) {
				t.Fatalf("entry %d: session %d of %d", i, e.Session, len(tr.Sessions))
			}
			if _, err := json.Marshal(tr.Object(i)); err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
		}
	})
}

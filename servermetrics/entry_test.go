package servermetrics

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestEntriesRoundTripPagesWritingOnlyWhatChanged(t *testing.T) {
	pages := []Scrape{
		scrapeOf(t, 0, Before, page{running: 1, success: 2, ttft: [4]float64{1, 2, 2, 2}, stageInflight: map[string]float64{"thinker": 1}}),
		scrapeOf(t, time.Second, During, page{running: 1, success: 2, ttft: [4]float64{1, 2, 2, 2}}), // thinker gone
		{At: 2 * time.Second, Phase: During, Err: "timeout", Detail: "slow"},
		scrapeOf(t, 3*time.Second, After, page{running: 0, success: 9, ttft: [4]float64{4, 8, 9, 9}, stageInflight: map[string]float64{"thinker": 2}}),
	}
	enc, dec := NewEncoder(), NewDecoder(0)
	var sizes []int
	for i, sc := range pages {
		raw, err := json.Marshal(enc.Entry(sc))
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(raw))
		got, err := dec.Decode(raw)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if want := values(sc); !reflect.DeepEqual(values(got), want) || got.At != sc.At || got.Phase != sc.Phase || got.Err != sc.Err {
			t.Fatalf("page %d came back as %+v\nwant %+v", i, values(got), want)
		}
	}
	if sizes[1] >= sizes[0]/4 {
		t.Errorf("an unchanged page took %d bytes against %d for the first: it should hold its changes only", sizes[1], sizes[0])
	}
}

// values maps series keys to values, for comparing pages whatever their order.
func values(sc Scrape) map[string]float64 {
	out := map[string]float64{}
	for _, p := range sc.Points {
		out[p.Series.Key()] = p.Value
	}
	return out
}

func TestDecoderRefusesDamage(t *testing.T) {
	for name, raw := range map[string]string{
		"not json":       `{`,
		"unknown phase":  `{"offset_ns":0,"phase":"later"}`,
		"series skipped": `{"offset_ns":0,"phase":"during","series":[{"id":1,"family":"f","type":"gauge"}]}`,
		"unknown type":   `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"weird"}]}`,
		"bad le":         `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"histogram","part":"bucket","le":"x"}]}`,
		"no such series": `{"offset_ns":0,"phase":"during","values":[[3,1]]}`,
		"fractional id":  `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"gauge"}],"values":[[0.5,1]]}`,
		"gone unknown":   `{"offset_ns":0,"phase":"during","gone":[7]}`,
	} {
		if _, err := NewDecoder(0).Decode(json.RawMessage(raw)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func TestDecoderBoundsTheSeriesAFileDeclares(t *testing.T) {
	raw := `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"gauge"},{"id":1,"family":"g","type":"gauge"}]}`
	if _, err := NewDecoder(1).Decode(json.RawMessage(raw)); err == nil {
		t.Fatal("a file past the decoder's series cap was read")
	}
}

func FuzzDecode(f *testing.F) {
	enc := NewEncoder()
	sc := Scrape{Phase: During, Points: []Point{{&Series{Family: "vllm:x", Type: typeHistogram, Part: partBucket, LE: 0.5, Labels: []Label{{"stage", "a"}}}, 3}}}
	seed, _ := json.Marshal(enc.Entry(sc))
	f.Add(seed)
	f.Add([]byte(`{"offset_ns":1,"phase":"after","gone":[0]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(64)
		w := NewWindow(64)
		for range 2 { // a second entry reads against what the first declared
			got, err := d.Decode(data)
			if err != nil {
				return
			}
			w.Add(got)
		}
		w.Summarise("u", nil)
	})
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(page{running: 1, ttft: [4]float64{1, 2, 3, 3}, stageInflight: map[string]float64{"a\"b": 1}}.String()))
	f.Add([]byte("# TYPE vllm:h histogram\nvllm:h_bucket{le=\"+Inf\"} NaN\nvllm:h_count 1e308\n"))
	f.Fuzz(func(t *testing.T, page []byte) {
		pts, err := Parse(page, func(string) bool { return true })
		if err != nil {
			return
		}
		w := NewWindow(100)
		w.Add(Scrape{Phase: During, Points: pts})
		w.Add(Scrape{Phase: After, Points: pts})
		r := w.Summarise("u", nil)
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("the report of a parsed page does not encode: %v", err)
		}
		_ = raw
	})
}

package servermetrics

import (
	"encoding/json"
	"reflect"
	"strings"
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
		"not json":        `{`,
		"unknown phase":   `{"offset_ns":0,"phase":"later"}`,
		"declared again":  `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"gauge"},{"id":0,"family":"f","type":"gauge"}]}`,
		"unknown type":    `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"weird"}]}`,
		"bad le":          `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"histogram","part":"bucket","le":"x"}]}`,
		"negative series": `{"offset_ns":0,"phase":"during","values":[[-3,1]]}`,
		"fractional id":   `{"offset_ns":0,"phase":"during","series":[{"id":0,"family":"f","type":"gauge"}],"values":[[0.5,1]]}`,
		"gone past cap":   `{"offset_ns":0,"phase":"during","gone":[70000]}`,
	} {
		if _, err := NewDecoder(0).Decode(json.RawMessage(raw)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// A line the writer dropped (an output that could not keep up) loses its series and
// values until the next page written whole, not the rest of the file.
func TestADecoderThatLostALineIsRightAgainAtTheNextFullPage(t *testing.T) {
	enc, dec := NewEncoder(), NewDecoder(0)
	var last Scrape
	var got Scrape
	for i := range fullEvery + 1 {
		p := page{running: float64(i), success: float64(i)}
		if i >= 3 {
			p.stageInflight = map[string]float64{"talker": float64(i)} // declared on page 3
		}
		last = scrapeOf(t, time.Duration(i)*time.Second, During, p)
		raw, err := json.Marshal(enc.Entry(last))
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			continue // lost: its declaration and its values
		}
		if got, err = dec.Decode(raw); err != nil {
			t.Fatalf("page %d after the lost line: %v", i, err)
		}
		if i == fullEvery-1 && reflect.DeepEqual(values(got), values(last)) {
			t.Fatal("the stage series came back before any full page: the test lost nothing")
		}
	}
	// Page fullEvery (the 64th written) is whole: every value the decoder knows a series of
	// is right again; the series declared on the lost line stay unknown.
	want := values(last)
	for k := range want {
		if strings.Contains(k, "stage_inflight") {
			delete(want, k)
		}
	}
	if !reflect.DeepEqual(values(got), want) {
		t.Fatalf("after the full page: %v\nwant %v", values(got), want)
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
		pts, _, err := Parse(page, func(string) bool { return true })
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

package mock

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadConfigOverridesOneKnobOfABuiltinStage(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig("testdata/config.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(WithConfig(c))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Models(); len(got) != 1 || got[0] != "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice" {
		t.Fatalf("models = %v", got)
	}
	st := s.profiles[0].Stages[1]
	if time.Duration(st.TimePerUnit) != 40*time.Millisecond || st.Units != 8 || st.AudioSecondsPerChunk != 0.4 || st.SampleRate != 24000 {
		t.Fatalf("code2wav = %+v; the untouched knobs must keep their defaults", st)
	}
	if len(s.profiles[0].Stages) != 2 || s.cfg.Speed != 5 || s.cfg.Seed != 9 || s.cfg.KneeConcurrency != 8 {
		t.Fatalf("config = %+v", s.cfg)
	}
	want := []Fault{{Kind: FaultStall, Probability: 0.5, After: 3, Delay: Duration(time.Second)},
		{Kind: FaultHTTP503, Probability: 0.1, After: 3, Delay: Duration(2 * time.Second)}}
	for i, f := range s.cfg.Faults {
		if f != want[i] {
			t.Errorf("fault %d = %+v, want %+v", i, f, want[i])
		}
	}
}

func TestInvalidConfigsAreRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []Option
		msg  string
	}{
		{"unknown profile", []Option{WithProfile("gpt")}, `unknown profile "gpt"`},
		{"zero speed", []Option{WithSpeed(0)}, "speed"},
		{"jitter of 1", []Option{WithJitter(1)}, "jitter"},
		{"fault probability", []Option{WithFaults(Fault{Kind: FaultReset, Probability: 2})}, "p must be"},
		{"stage output", []Option{WithProfiles(Profile{Name: "x", Stages: []Stage{{Name: "s", Output: "smell"}}})}, `output "smell"`},
		{"no stages", []Option{WithProfiles(Profile{Name: "x"})}, "no stages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := New(tc.opts...); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %q", err, tc.msg)
			}
		})
	}
}

func TestParseFault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Fault
		err  string
	}{
		{in: "reset", want: Fault{Kind: FaultReset, Probability: 1, After: 3, Delay: defaultFaultDelay}},
		{in: "stall,p=0.25,after=0,delay=1.5", want: Fault{Kind: FaultStall, Probability: 0.25, Delay: Duration(1500 * time.Millisecond)}},
		{in: " slow-headers , delay=250ms", want: Fault{Kind: FaultSlowHeaders, Probability: 1, After: 3, Delay: Duration(250 * time.Millisecond)}},
		{in: "http_500:p=0.05:after=1", want: Fault{Kind: FaultHTTP500, Probability: 0.05, After: 1, Delay: defaultFaultDelay}},
		{in: "Truncated_WAV", want: Fault{Kind: FaultTruncatedWAV, Probability: 1, After: 3, Delay: defaultFaultDelay}},
		{in: "teleport", err: "unknown"},
		{in: "reset,stall", err: "exactly one"},
		{in: "p=1,reset", err: "before any fault kind"},
		{in: "reset,q=1", err: "unknown key"},
		{in: "reset,p=1.5", err: "p must be"},
		{in: "stall,delay=soon", err: "fault"},
	}
	for _, tc := range tests {
		got, err := ParseFault(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseFault(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"http429,p=0.1; reset", "http_429:p=0.1,reset"} {
		fs, err := ParseFaults(in)
		if err != nil || len(fs) != 2 || fs[0].Kind != FaultHTTP429 || fs[0].Probability != 0.1 || fs[1].Kind != FaultReset {
			t.Errorf("ParseFaults(%q) = %v, %v", in, fs, err)
		}
	}
}

func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"reset", "stall,p=0.5,after=2,delay=1s;http500", ",,;", "x=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := ParseFaults(s)
		if err != nil {
			return
		}
		for _, f := range fs {
			if f.validate() != nil {
				t.Fatalf("ParseFaults(%q) accepted an invalid fault %+v", s, f)
			}
		}
	})
}

func TestConfigSurvivesAJSONRoundTrip(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	p, _ := BuiltinProfile("hunyuan-image")
	c.Profiles = []Profile{p}
	c.Faults = []Fault{{Kind: FaultStall, Probability: 0.5, After: 2, Delay: Duration(1500 * time.Millisecond)}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, back) {
		t.Fatalf("round trip:\n%+v\n%+v", c, back)
	}
}

func TestLoadConfigErrorsSayWhere(t *testing.T) {
	t.Parallel()
	if _, err := LoadConfig("testdata/missing.json"); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("err = %v", err)
	}
}

func TestHandlerMountsAnywhere(t *testing.T) {
	t.Parallel()
	s, err := New(WithProfile("tts"), WithSpeed(10))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Post(ts.URL+speechURL, "application/json", strings.NewReader(`{"input":"hi","response_format":"pcm"}`))
	if err != nil || resp.StatusCode != 200 || s.URL() != "" || s.Config().Profile != "tts" {
		t.Fatalf("%v %v url %q", resp, err, s.URL())
	}
	resp.Body.Close()
}

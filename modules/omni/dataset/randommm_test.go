package dataset

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestSyntheticImageIsARealPNGOfTheSize(t *testing.T) {
	t.Parallel()
	m := syntheticImage(64, 48, 9)
	img, err := png.Decode(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 48 || m.Width != 64 || m.Height != 48 || m.MIME != "image/png" {
		t.Errorf("bounds %v, media %dx%d %s", b, m.Width, m.Height, m.MIME)
	}
	if !bytes.Equal(syntheticImage(64, 48, 9).Data, m.Data) || bytes.Equal(syntheticImage(64, 48, 10).Data, m.Data) {
		t.Error("the image is not a function of its seed")
	}
	if !strings.HasPrefix(m.DataURL(), "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("data URL %.40s", m.DataURL())
	}
	// Encoded once and kept: every call returns the same string, not a new encoding.
	if first, again := m.DataURL(), m.DataURL(); unsafe.StringData(first) != unsafe.StringData(again) {
		t.Error("DataURL encodes the media again on every call")
	}
}

func TestSyntheticAudioIsAPCM16ToneOfTheLength(t *testing.T) {
	t.Parallel()
	m := syntheticAudio(2, 2, 16000, 3)
	rate, ch, d, ok := wavInfo(m.Data)
	if !ok || rate != 16000 || ch != 2 || d != 2*time.Second || len(m.Data) != 44+2*16000*2*2 {
		t.Fatalf("wav %v: rate %d channels %d duration %v, %d bytes", ok, rate, ch, d, len(m.Data))
	}
	if m.Duration != d || m.SampleRate != rate || m.Channels != ch || m.MIME != "audio/wav" {
		t.Errorf("media %+v", m)
	}
	peak := 0
	for i := 44; i < len(m.Data); i += 2 {
		peak = max(peak, int(int16(uint16(m.Data[i])|uint16(m.Data[i+1])<<8)))
	}
	if want := math.MaxInt16 / 2; peak < want-5 || peak > want {
		t.Errorf("peak %d, want about %d (half scale)", peak, want)
	}
}

func TestRandomMMAttachesItemsAsConfigured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		mm             MMSpec
		images, audio  [2]int // min, max per request
		wantW, wantSec int
	}{
		{"one small image", MMSpec{Buckets: []Bucket{{32, 48, 1, 1}}}, [2]int{1, 1}, [2]int{0, 0}, 48, 0},
		{"two to four images capped at three", MMSpec{BaseItems: 3, ItemsRangeRatio: 0.34, Limits: map[string]int{"image": 3},
			Buckets: []Bucket{{16, 16, 1, 1}}}, [2]int{1, 3}, [2]int{0, 0}, 16, 0},
		{"audio of one second", MMSpec{Buckets: []Bucket{{0, 1, 1, 1}}, AudioSampleRate: 8000}, [2]int{0, 0}, [2]int{1, 1}, 0, 1},
		{"image or audio, one of each at most", MMSpec{BaseItems: 2, Limits: map[string]int{"image": 1, "audio": 1},
			Buckets: []Bucket{{8, 8, 1, 0.5}, {0, 1, 1, 0.5}}, AudioSampleRate: 8000}, [2]int{1, 1}, [2]int{1, 1}, 8, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Load(Spec{Name: RandomMM, NumPrompts: 40, RandomInputLen: 16, Seed: 1, MM: tt.mm})
			if err != nil {
				t.Fatal(err)
			}
			for i := range d.Len() {
				s := d.At(i)
				if len(s.Images) < tt.images[0] || len(s.Images) > tt.images[1] || len(s.Audio) < tt.audio[0] || len(s.Audio) > tt.audio[1] {
					t.Fatalf("sample %d: %d images, %d audio", i, len(s.Images), len(s.Audio))
				}
				for _, m := range s.Images {
					if m == nil || m.Width != tt.wantW || m.Size() == 0 {
						t.Fatalf("sample %d: image %+v", i, m)
					}
				}
				for _, m := range s.Audio {
					if m == nil || m.Duration != time.Duration(tt.wantSec)*time.Second {
						t.Fatalf("sample %d: audio %+v", i, m)
					}
				}
				if s.Prompt == "" || s.OutputTokens != DefaultRandomOutputLen {
					t.Fatalf("sample %d: prompt %q, output %d", i, s.Prompt, s.OutputTokens)
				}
			}
		})
	}
}

func TestRandomMMIsDeterministicForASeed(t *testing.T) {
	t.Parallel()
	spec := Spec{Name: RandomMM, NumPrompts: 20, RandomInputLen: 8, Seed: 5,
		MM: MMSpec{BaseItems: 2, ItemsRangeRatio: 1, Buckets: []Bucket{{8, 8, 1, 0.7}, {0, 1, 1, 0.3}}, AudioSampleRate: 4000}}
	a, _ := Load(spec)
	b, _ := Load(spec)
	for i := range a.Len() {
		x, y := a.At(i), b.At(i)
		if x.Prompt != y.Prompt || len(x.Images) != len(y.Images) || len(x.Audio) != len(y.Audio) {
			t.Fatalf("sample %d differs", i)
		}
		for j := range x.Images {
			if !bytes.Equal(x.Images[j].Data, y.Images[j].Data) {
				t.Fatalf("sample %d image %d differs", i, j)
			}
		}
	}
}

func TestRandomMMRejectsBadOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mm   MMSpec
		want string
	}{
		{"video bucket", MMSpec{Buckets: []Bucket{{720, 1280, 16, 1}}}, "does not generate video"},
		{"negative probability", MMSpec{Buckets: []Bucket{{8, 8, 1, -1}}}, "is negative"},
		{"all zero", MMSpec{Buckets: []Bucket{{8, 8, 1, 0}}}, "no bucket has a positive probability"},
		{"modality without limit", MMSpec{Limits: map[string]int{"image": 1}, Buckets: []Bucket{{0, 1, 1, 1}}}, `has no "audio"`},
		{"ratio above 1", MMSpec{ItemsRangeRatio: 1.5}, "want [0, 1]"},
		{"minimum above limits", MMSpec{BaseItems: 4, Limits: map[string]int{"image": 2}, Buckets: []Bucket{{8, 8, 1, 1}}}, "minimum 4 exceeds maximum 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(Spec{Name: RandomMM, NumPrompts: 1, MM: tt.mm})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseBucketsTakesVLLMsPythonLiteral(t *testing.T) {
	t.Parallel()
	got, err := ParseBuckets(`{(256, 256, 1): 0.5, (720, 1280, 1): 0.4, "(0, 5, 2)": 1e-1}`)
	want := []Bucket{{256, 256, 1, 0.5}, {720, 1280, 1, 0.4}, {0, 5, 2, 0.1}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bucket %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "{}", "(1,2,3): 1", "{(1, 2): 1}", "{(1, 2, 3): 1, junk}"} {
		if _, err := ParseBuckets(bad); err == nil {
			t.Errorf("ParseBuckets(%q) accepted", bad)
		}
	}
	if m, err := ParseLimits(`{"image": 3, "audio": 0}`); err != nil || m["image"] != 3 || m["audio"] != 0 {
		t.Errorf("ParseLimits = %v, %v", m, err)
	}
	for _, bad := range []string{`{"image": -1}`, `[1]`, `null`, `{"image": 1.5}`} {
		if _, err := ParseLimits(bad); err == nil {
			t.Errorf("ParseLimits(%q) accepted", bad)
		}
	}
}

package record

import "testing"

func TestStageKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		final, unit string
		want        StageKind
	}{
		{"text", "", StageText},
		{"", "text", StageText},
		{"audio", "latent", StageAudio},
		{"", "audio", StageAudio},
		{"images", "", StageImage},
		{"", "image", StageImage},
		{"image", "video", StageVideo}, // latest: image only when not video
		{"videos", "", StageVideo},
		{"unknown", "stream", StageStream},
		{"text", "stream", StageText},
		{"unknown", "latent", StageOther},
		{"unknown", "other", StageOther},
	}
	for _, tt := range tests {
		if got := KindOf(tt.final, tt.unit); got != tt.want {
			t.Errorf("KindOf(%q, %q) = %v, want %v", tt.final, tt.unit, got, tt.want)
		}
	}
}

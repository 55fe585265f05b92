package mp4

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/mock"
)

// The simulator's clips are MP4s whose header states the job's duration and frames, so
// a client that reads only the content finds what the job said.
func TestScanReadsTheSimulatorsClip(t *testing.T) {
	t.Parallel()
	sim, err := mock.New(mock.WithSpeed(20))
	if err != nil {
		t.Fatal(err)
	}
	u, err := sim.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	resp, err := http.Post(u+"/v1/videos", "application/json", strings.NewReader(`{"prompt":"x","num_frames":"48","fps":"24","size":"64x64"}`))
	if err != nil {
		t.Fatal(err)
	}
	var job struct{ ID, Status string }
	err = json.NewDecoder(resp.Body).Decode(&job)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for job.Status != "completed" {
		time.Sleep(5 * time.Millisecond)
		resp, err := http.Get(u + "/v1/videos/" + job.ID)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&job)
		resp.Body.Close()
		if err != nil || job.Status == "failed" {
			t.Fatalf("job %+v: %v", job, err)
		}
	}
	resp, err = http.Get(u + "/v1/videos/" + job.ID + "/content")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if info, err := Scan(resp.Body); err != nil || info != (Info{Seconds: 2, Frames: 48}) {
		t.Errorf("clip %+v %v", info, err)
	}
}

package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// videoServer scripts a /v1/videos job: the create answers created, the i-th status poll
// polls[min(i, len-1)] (a body, or a status: "503"), the content has content bytes
// announced as announced (0: as many as sent).
type videoServer struct {
	created       string
	polls         []string
	content       int
	clip          []byte // served before the content's zeros
	announced     int
	mu            sync.Mutex
	polled, gotIt int
	paths         []string
}

func (vs *videoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	vs.paths = append(vs.paths, r.Method+" "+r.URL.Path)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/videos":
		answer(w, vs.created)
	case strings.HasSuffix(r.URL.Path, "/content"):
		vs.gotIt++
		w.Header().Set("Content-Length", strconv.Itoa(max(vs.announced, len(vs.clip)+vs.content)))
		w.Write(vs.clip)
		w.Write(make([]byte, vs.content))
	default:
		answer(w, vs.polls[min(vs.polled, len(vs.polls)-1)])
		vs.polled++
	}
}

// answer writes body, or an error of that status when body is a number.
func answer(w http.ResponseWriter, body string) {
	if code, err := strconv.Atoi(body); err == nil {
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":"busy","type":"x","code":%d}}`, code)
		return
	}
	fmt.Fprint(w, body)
}

func runVideo(t *testing.T, vs *videoServer, timeout time.Duration, job VideoJob) *record.Record {
	t.Helper()
	srv := serve(t, vs)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return Videos(ctx, srv.Client(), Request{URL: srv.URL + "/v1/videos", Body: []byte("--b--"), ContentType: "multipart/form-data; boundary=b"}, job)
}

const (
	queued     = `{"id":"video_gen_7","object":"video","status":"queued","progress":0,"seconds":"4"}`
	inProgress = `{"id":"video_gen_7","object":"video","status":"in_progress","progress":40}`
	completed  = `{"id":"video_gen_7","object":"video","status":"completed","progress":100,"duration_s":2.0,"num_frames":48,"fps":24,"inference_time_s":4.5,"stage_durations":{"dit_gen_ms":4000},"peak_memory_mb":800,"metrics":{"stage_metrics":{"0":{"stage_id":0,"stage_name":"dit","final_output_type":"video","output_unit_type":"video","stage_gen_time_ms":3990}}}}`
)

func TestVideosCreatePollDownload(t *testing.T) {
	t.Parallel()
	vs := &videoServer{created: queued, polls: []string{inProgress, completed}, content: 12345}
	r := runVideo(t, vs, time.Minute, VideoJob{PollInterval: time.Millisecond, Download: true})
	v := r.Video
	if !r.OK() || r.Endpoint != record.EndpointVideos || r.RequestID != "video_gen_7" || v.JobID != "video_gen_7" || v.Status != "completed" {
		t.Fatalf("record %+v %+v", r.Err, v)
	}
	if v.Polls != 2 || v.Bytes != 12345 || v.Seconds != 2 || v.Frames != 48 || v.FPS != 24 || v.Source != record.VideoFromServer || v.GenerationMS != 4000 {
		t.Errorf("video %+v", v)
	}
	// The job was unfinished at the send of poll 1, completed at poll 2's answer, and the
	// download came after.
	if !(v.Pending > 0 && v.Pending < r.End && r.End <= v.Content) || v.PollInterval != time.Millisecond {
		t.Errorf("pending %v, end %v, content %v", v.Pending, r.End, v.Content)
	}
	if r.Stages["0"].OutputUnitType != "video" || !slices.Equal(r.Images.StageDurations, chunk.Durations{{Key: "dit_gen_ms", Value: 4000}}) || r.Images.PeakMemoryMB != 800 {
		t.Errorf("stages %+v, images %+v", r.Stages, r.Images)
	}
	if r.BytesSent != 5 || r.BytesReceived != int64(len(queued)+len(inProgress)+len(completed)+12345) {
		t.Errorf("bytes %d %d", r.BytesSent, r.BytesReceived)
	}
	if want := "POST /v1/videos,GET /v1/videos/video_gen_7,GET /v1/videos/video_gen_7,GET /v1/videos/video_gen_7/content"; strings.Join(vs.paths, ",") != want {
		t.Errorf("requests %v", vs.paths)
	}
}

func TestVideosFailures(t *testing.T) {
	t.Parallel()
	failedJob := `{"id":"video_gen_7","status":"failed","error":{"code":500,"message":"CUDA out of memory"}}`
	tests := []struct {
		name    string
		vs      *videoServer
		timeout time.Duration
		kind    string
		says    string
		polls   int
	}{
		{"the job failed", &videoServer{created: queued, polls: []string{inProgress, failedJob}}, time.Minute,
			record.KindJobFailed, "video job video_gen_7 failed after 2 polls: CUDA out of memory (code 500)", 2},
		{"the job never completes", &videoServer{created: queued, polls: []string{inProgress}}, 50 * time.Millisecond,
			record.KindTimeout, `not completed within the timeout`, -1},
		{"a 503 on a poll", &videoServer{created: queued, polls: []string{inProgress, "503"}}, time.Minute,
			record.KindHTTPStatus, "status poll 2 of job video_gen_7: HTTP 503 Service Unavailable: busy", 2},
		{"the create refused", &videoServer{created: "429"}, time.Minute,
			record.KindHTTPStatus, "HTTP 429 Too Many Requests: busy", 0},
		{"a create answer without an id", &videoServer{created: `{"status":"queued"}`}, time.Minute,
			record.KindMalformed, "the create answer has no job id", 0},
		{"a poll answer cut short", &videoServer{created: queued, polls: []string{`{"id":"video_gen_7","sta`}}, time.Minute,
			record.KindMalformed, "status poll 1 of job video_gen_7", 1},
		{"a poll answer with an error object", &videoServer{created: queued, polls: []string{`{"id":"video_gen_7","status":"in_progress","error":{"message":"worker lost"}}`}}, time.Minute,
			record.KindStreamError, "status poll 1 of job video_gen_7: worker lost", 1},
		{"a poll answer without a status", &videoServer{created: queued, polls: []string{`{"id":"video_gen_7"}`}}, time.Minute,
			record.KindMalformed, "status poll 1 of job video_gen_7: the answer has no status", 1},
		{"a poll answer about another job", &videoServer{created: queued, polls: []string{`{"id":"video_gen_8","status":"completed"}`}}, time.Minute,
			record.KindMalformed, `status poll 1 of job video_gen_7: the answer is about job "video_gen_8"`, 1},
		{"the job cancelled", &videoServer{created: queued, polls: []string{inProgress, `{"id":"video_gen_7","status":"cancelled"}`}}, time.Minute,
			record.KindJobFailed, `video job video_gen_7 ended with status "cancelled" after 2 polls`, 2},
		{"content cut short", &videoServer{created: queued, polls: []string{completed}, content: 100, announced: 1000}, time.Minute,
			record.KindTruncated, "the content of job video_gen_7: body ended at byte 100 of its Content-Length 1000", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runVideo(t, tt.vs, tt.timeout, VideoJob{PollInterval: time.Millisecond, Download: true})
			if r.Err == nil || r.Err.Kind != tt.kind || !strings.Contains(r.Err.Message, tt.says) {
				t.Fatalf("err = %+v, want %s saying %q", r.Err, tt.kind, tt.says)
			}
			if tt.polls >= 0 && r.Video.Polls != tt.polls {
				t.Errorf("polls = %d, want %d", r.Video.Polls, tt.polls)
			}
		})
	}
}

func TestVideosFallsBackToTheRequestedClip(t *testing.T) {
	t.Parallel()
	done := `{"id":"video_gen_7","status":"completed","inference_time_s":3}`
	tests := []struct {
		job            VideoJob
		seconds        float64
		frames         int64
		source         string
		generationMS   float64
		downloadedOnce bool
		created        string
	}{
		{VideoJob{Seconds: 4, FPS: 16}, 4, 64, record.VideoFromRequest, 3000, false, done},
		{VideoJob{NumFrames: 81, FPS: 16, Download: true}, 81.0 / 16, 81, record.VideoFromRequest, 3000, true, done},
		{VideoJob{}, 0, 0, "", 3000, false, done},
		// The job's echoed seconds come before the request's.
		{VideoJob{Seconds: 4, FPS: 16}, 6, 96, record.VideoFromServer, 0, false, `{"id":"video_gen_7","status":"completed","seconds":"6"}`},
	}
	for _, tt := range tests {
		vs := &videoServer{created: tt.created, content: 10}
		tt.job.PollInterval = time.Millisecond
		r := runVideo(t, vs, time.Minute, tt.job)
		v := r.Video
		if !r.OK() || v.Polls != 0 || v.Seconds != tt.seconds || v.Frames != tt.frames || v.Source != tt.source || v.GenerationMS != tt.generationMS {
			t.Errorf("%+v: %+v %+v", tt.job, r.Err, v)
		}
		if (vs.gotIt == 1) != tt.downloadedOnce {
			t.Errorf("%+v: downloaded %d times", tt.job, vs.gotIt)
		}
	}
}

// A job the run stops (its context cancelled, not timed out) is interrupted, not failed.
func TestVideosStoppedByTheRunIsInterrupted(t *testing.T) {
	t.Parallel()
	vs := &videoServer{created: queued, polls: []string{inProgress}}
	srv := serve(t, vs)
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(20*time.Millisecond, cancel).Stop()
	r := Videos(ctx, srv.Client(), Request{URL: srv.URL + "/v1/videos"}, VideoJob{PollInterval: time.Millisecond})
	if !r.Interrupted() || !strings.Contains(r.Err.Message, "video job video_gen_7") {
		t.Fatalf("err = %+v", r.Err)
	}
}

// box is an MP4 box of typ holding parts.
func box(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(binary.BigEndian.AppendUint32(nil, uint32(8+len(body))), append([]byte(typ), body...)...)
}

// Without a duration from the job, the downloaded clip's header gives it (before what the
// body asked for), and a download that is not an MP4 is only counted.
func TestVideosReadsTheClipsHeader(t *testing.T) {
	t.Parallel()
	done := `{"id":"video_gen_7","status":"completed"}`
	u32 := func(vs ...uint32) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, vs[0]), vs[1])
	}
	moov := box("moov", box("mvhd", u32(0, 0), u32(0, 16), u32(40, 0)),
		box("trak", box("mdia", box("hdlr", u32(0, 0), []byte("vide")), box("minf", box("stbl", box("stsz", u32(0, 0), u32(40, 0)))))))
	for _, tt := range []struct {
		clip    []byte
		seconds float64
		frames  int64
		source  string
	}{
		{append(moov, box("mdat", make([]byte, 64))...), 2.5, 40, record.VideoFromContent},
		{[]byte("<html>a login page</html>"), 4, 64, record.VideoFromRequest},
	} {
		vs := &videoServer{created: done, clip: tt.clip}
		r := runVideo(t, vs, time.Minute, VideoJob{PollInterval: time.Millisecond, Download: true, Seconds: 4, FPS: 16})
		v := r.Video
		if !r.OK() || v.Seconds != tt.seconds || v.Frames != tt.frames || v.Source != tt.source || v.Bytes != int64(len(tt.clip)) {
			t.Errorf("%q: %+v %+v", tt.clip[:8], r.Err, v)
		}
	}
}

// A completed job whose download outlives the deadline fails as its content, and a poll
// the deadline cuts names as many polls as the record counts.
func TestVideosTimeoutsNameWhatTheyCut(t *testing.T) {
	t.Parallel()
	hang := func(content bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPost:
				if content {
					fmt.Fprint(w, `{"id":"video_gen_7","status":"completed"}`)
				} else {
					fmt.Fprint(w, queued)
				}
				return
			case content:
				w.Header().Set("Content-Length", "1000")
				w.Write(make([]byte, 10))
				w.(http.Flusher).Flush()
			}
			<-r.Context().Done()
		}
	}
	for _, content := range []bool{true, false} {
		srv := serve(t, hang(content))
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		r := Videos(ctx, srv.Client(), Request{URL: srv.URL + "/v1/videos"}, VideoJob{PollInterval: time.Millisecond, Download: true})
		cancel()
		want := "the content of job video_gen_7: not downloaded within the timeout after 10 bytes"
		if !content {
			want = fmt.Sprintf("video job video_gen_7 not completed within the timeout: %d polls,", r.Video.Polls)
		}
		if r.Err == nil || r.Err.Kind != record.KindTimeout || !strings.HasPrefix(r.Err.Message, want) {
			t.Errorf("content %v: err = %+v, want %q", content, r.Err, want)
		}
	}
}

// The content counts against maxBodyBytes: past it the download stops, oversized.
func TestVideosContentIsBoundedByTheBodyLimit(t *testing.T) {
	t.Parallel()
	vs := &videoServer{created: `{"id":"video_gen_7","status":"completed"}`, content: 100 << 10}
	srv := serve(t, vs)
	r := Videos(context.Background(), srv.Client(), Request{URL: srv.URL + "/v1/videos", Limits: Limits{Body: 1000}}, VideoJob{Download: true})
	if r.Err == nil || r.Err.Kind != record.KindOversized || !strings.Contains(r.Err.Message, "the content of job video_gen_7: client: response body too large: more than 1000 bytes") {
		t.Fatalf("err = %+v", r.Err)
	}
	if r.Video.Bytes >= 100<<10 {
		t.Errorf("read %d bytes past the limit", r.Video.Bytes)
	}
}

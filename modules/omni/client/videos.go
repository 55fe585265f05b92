package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/mp4"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// VideoJob says how to run an async video job besides the create request.
type VideoJob struct {
	// PollInterval is the wait between status polls; the reference's poll_interval_s.
	PollInterval time.Duration
	// Download fetches GET …/{id}/content once the job completed and counts its bytes.
	Download bool
	// Seconds, NumFrames and FPS are what the body asked for, the reference's fallback
	// for a server that reports no duration or frames. 0 when not asked.
	Seconds, NumFrames, FPS float64
}

// Videos runs one job of /v1/videos: it posts req (multipart, as vLLM-Omni takes it),
// polls GET {URL}/{id} every PollInterval until the job is completed or failed, then
// downloads {URL}/{id}/content. The record ends at the answer of the poll that saw the
// job completed (E2EL, as the reference measures it: poll waits included); the download
// is timed apart (Video.Content). The request's context deadline is the poll timeout: a
// job still unfinished then fails as a timeout that names its last status. The download
// has what is left of that deadline and Limits.Body for its bytes; its failures name the
// content, never the poll timeout.
func Videos(ctx context.Context, hc *http.Client, req Request, job VideoJob) *record.Record {
	c, failed := start(ctx, hc, &req, record.EndpointVideos)
	if c == nil {
		return failed
	}
	r := &videoRun{ctx: ctx, hc: hc, req: &req, b: c.b, job: job, sent: c.sent.Load}
	r.b.Video().PollInterval = job.PollInterval
	body, at, ok := r.read(c, "the create answer")
	if !ok {
		return r.finish(time.Now())
	}
	j, ok := r.decode(body, "the create answer")
	if !ok {
		return r.finish(at)
	}
	if j.ID == "" {
		r.b.Fail(record.KindMalformed, "the create answer has no job id")
		return r.finish(at)
	}
	r.b.SetRequestID(j.ID)
	r.b.Video().JobID = j.ID
	sent := r.b.Start()
	for r.take(j) {
		// The answer of the exchange sent then found the job unfinished.
		r.b.Video().Pending = sent.Sub(r.b.Start())
		if !r.wait() {
			return r.finish(time.Now())
		}
		sent = time.Now()
		// Counted before it is sent, so a timeout during it names as many polls as the record.
		r.b.Video().Polls++
		where := fmt.Sprintf("status poll %d of job %s", r.b.Video().Polls, j.ID)
		c := r.get(req.URL+"/"+j.ID, where)
		if c == nil {
			return r.finish(time.Now())
		}
		if body, at, ok = r.read(c, where); !ok {
			return r.finish(time.Now())
		}
		id := j.ID
		if j, ok = r.decode(body, where); !ok || !r.polled(j, id, where) {
			return r.finish(at)
		}
	}
	if r.b.Failed() {
		return r.finish(at)
	}
	var clip mp4.Info
	if job.Download {
		clip = r.download(req.URL + "/" + j.ID + "/content")
	}
	r.resolve(j, clip)
	return r.finish(at)
}

// videoRun is one job in flight: its HTTP exchanges share one record.
type videoRun struct {
	ctx      context.Context
	hc       *http.Client
	req      *Request
	b        *record.Builder
	job      VideoJob
	sent     func() int64 // the create request's body bytes
	received int64
	progress float64 // the last progress the job reported, for a timeout's message
	content  bool    // the job completed: failures are the download's
}

// polled checks a poll's answer is about job id and says how it stands: an error object
// beside an unfinished status fails the record as a stream's error event would, an
// empty status or another job's id is malformed.
func (r *videoRun) polled(j chunk.VideoJob, id, where string) bool {
	switch {
	case j.Error != nil && j.Status != chunk.VideoFailed:
		r.b.Fail(record.KindStreamError, where+": "+errorText(j.Error))
	case j.Status == "":
		r.b.Fail(record.KindMalformed, where+": the answer has no status")
	case j.ID != id:
		r.b.Fail(record.KindMalformed, fmt.Sprintf("%s: the answer is about job %q", where, j.ID))
	default:
		return true
	}
	return false
}

// take reads a job answer into the record and reports whether the job is still to be
// waited for; a failed job fails the record with the job's reason.
func (r *videoRun) take(j chunk.VideoJob) bool {
	v := r.b.Video()
	v.Status = j.Status
	r.b.OnStageMetrics(j.Metrics)
	r.b.OnServerStats(j.StageDurations, j.PeakMemoryMB)
	switch j.Status {
	case chunk.VideoCompleted:
		return false
	case chunk.VideoFailed:
		reason := "no reason given"
		if j.Error != nil {
			reason = errorText(j.Error)
		}
		r.b.Fail(record.KindJobFailed, fmt.Sprintf("video job %s failed after %d polls: %s", j.ID, v.Polls, reason))
		return false
	case chunk.VideoQueued, chunk.VideoInProgress, "":
	default:
		// cancelled, expired: a job that will never complete.
		r.b.Fail(record.KindJobFailed, fmt.Sprintf("video job %s ended with status %q after %d polls", j.ID, j.Status, v.Polls))
		return false
	}
	r.progress = j.Progress
	return true
}

// wait sleeps one poll interval, or fails the record when the job's time is up first.
func (r *videoRun) wait() bool {
	t := time.NewTimer(r.job.PollInterval)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.ctx.Done():
		r.ended()
		return false
	}
}

// ended fails the record for the context's end: the poll timeout, or the run stopping.
func (r *videoRun) ended() {
	v := r.b.Video()
	if errors.Is(r.ctx.Err(), context.DeadlineExceeded) {
		r.b.Fail(record.KindTimeout, fmt.Sprintf("video job %s not completed within the timeout: %d polls, last status %q at %g%%",
			v.JobID, v.Polls, v.Status, r.progress))
		return
	}
	r.b.Fail(record.KindInterrupted, fmt.Sprintf("video job %s: %v", v.JobID, r.ctx.Err()))
}

// get sends one GET of the job and returns its exchange, or nil when it failed (the
// record then says why, naming where).
func (r *videoRun) get(url, where string) *call {
	c := &call{req: r.req, b: r.b, ctx: r.ctx}
	hr, err := http.NewRequestWithContext(r.ctx, http.MethodGet, url, nil)
	if err != nil {
		r.b.Fail(record.KindConnect, where+": "+err.Error())
		return nil
	}
	for k, v := range r.req.Header {
		hr.Header[k] = v
	}
	hr.Header.Del("Content-Type")
	userInfoAsHeader(hr.URL, hr.Header)
	resp, err := r.hc.Do(hr)
	if err != nil {
		r.failed(c, where, err)
		return nil
	}
	c.resp = resp
	c.body = &closer{ReadCloser: resp.Body, cancel: func() {}}
	resp.Body = c.body
	r.b.SetStatus(resp.StatusCode)
	if resp.StatusCode/100 != 2 {
		r.b.Fail(record.KindHTTPStatus, where+": "+c.httpErrorText())
		r.close(c)
		return nil
	}
	return c
}

// failed records a transport or reader error of an exchange: the job's own timeout
// message when its time is up, else the error classified.
func (r *videoRun) failed(c *call, where string, err error) {
	if r.ctx.Err() != nil && !r.content {
		r.ended()
		return
	}
	kind, err := c.failure(err)
	if kind == record.KindTimeout && r.content {
		var n int64
		if c.body != nil {
			n = c.body.n
		}
		err = fmt.Errorf("not downloaded within the timeout after %d bytes", n)
	}
	r.b.Fail(kind, where+": "+err.Error())
}

// read reads an exchange's whole body (bounded by Limits.Body) and closes it.
func (r *videoRun) read(c *call, where string) ([]byte, time.Time, bool) {
	body, at, err := c.readBody()
	if err != nil {
		r.failed(c, where, err)
	}
	r.close(c)
	return body, at, err == nil
}

func (r *videoRun) close(c *call) {
	c.resp.Body.Close()
	r.received += c.body.n
}

func (r *videoRun) decode(body []byte, where string) (chunk.VideoJob, bool) {
	j, err := chunk.DecodeVideoJob(body)
	if err != nil {
		r.b.Fail(record.KindMalformed, where+": "+err.Error())
	}
	return j, err == nil
}

// download counts the content's bytes, without keeping them, and reads the duration and
// frames its MP4 header boxes state (nothing is decoded). Content that is not an MP4 is
// counted all the same.
func (r *videoRun) download(url string) mp4.Info {
	where := "the content of job " + r.b.Video().JobID
	r.content = true
	c := r.get(url, where)
	if c == nil {
		return mp4.Info{}
	}
	clip, err := mp4.Scan(&bounded{r: c.body, limit: r.req.Limits.Body})
	if err != nil && !errors.Is(err, mp4.ErrNotMP4) {
		r.failed(c, where, err)
	}
	r.b.Video().Bytes, r.b.Video().Content = c.body.n, time.Since(r.b.Start())
	r.close(c)
	return clip
}

// bounded reads r until more than left bytes came, then fails with ErrBodyTooLarge, as
// readBody bounds a whole body.
type bounded struct {
	r        io.Reader
	n, limit int64
}

func (b *bounded) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if b.n += int64(n); b.n > b.limit {
		return n, fmt.Errorf("%w: more than %d bytes (options.omni.maxBodyBytes)", ErrBodyTooLarge, b.limit)
	}
	return n, err
}

// resolve settles the video's duration, frames and generation time from the completed
// job, else from the clip's header, else from the seconds the job echoes, else from what
// the request asked for, as the reference falls back.
func (r *videoRun) resolve(j chunk.VideoJob, clip mp4.Info) {
	v, q := r.b.Video(), r.job
	v.FPS = j.FPS
	if v.FPS <= 0 {
		v.FPS = q.FPS
	}
	if !(clip.Seconds <= record.MaxStageValue) {
		clip.Seconds = 0 // a header no clock has
	}
	switch {
	case j.DurationS > 0:
		v.Seconds, v.Source = j.DurationS, record.VideoFromServer
	case j.Frames > 0 && j.FPS > 0:
		v.Seconds, v.Source = float64(j.Frames)/j.FPS, record.VideoFromServer
	case clip.Seconds > 0:
		v.Seconds, v.Source = clip.Seconds, record.VideoFromContent
	case j.Seconds > 0:
		// The job's echo of the seconds asked for, the server's word on it.
		v.Seconds, v.Source = j.Seconds, record.VideoFromServer
	case q.Seconds > 0:
		v.Seconds, v.Source = q.Seconds, record.VideoFromRequest
	case q.NumFrames > 0 && q.FPS > 0:
		v.Seconds, v.Source = q.NumFrames/q.FPS, record.VideoFromRequest
	}
	switch {
	case j.Frames > 0:
		v.Frames = j.Frames
	case j.DurationS > 0 && j.FPS > 0:
		v.Frames = int64(math.Round(j.DurationS * j.FPS))
	case clip.Frames > 0:
		v.Frames = clip.Frames
	case q.NumFrames > 0:
		v.Frames = int64(q.NumFrames)
	case v.Source == record.VideoFromServer && j.Seconds > 0 && v.FPS > 0:
		v.Frames = int64(math.Round(j.Seconds * v.FPS))
	case q.Seconds > 0 && q.FPS > 0:
		v.Frames = int64(math.Round(q.Seconds * q.FPS))
	}
	v.GenerationMS = record.LargestGenMS(j.StageDurations)
	if !(v.GenerationMS > 0 && v.GenerationMS <= record.MaxStageValue) {
		// None, or a number no clock has (the builder drops it from the durations too).
		v.GenerationMS = min(j.InferenceTimeS*1000, record.MaxStageValue)
	}
}

func (r *videoRun) finish(end time.Time) *record.Record {
	r.b.SetBytes(r.sent(), r.received)
	return r.b.Finish(end)
}

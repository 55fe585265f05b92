package client

import (
	"context"
	"net/http"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/chunk"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/sse"
)

// Images posts an image generation (JSON) or edit (multipart: set req.ContentType) and
// reads the JSON response or, for a streamed edit, the image.edit.chunk events: ar_delta
// text drives TTFT and ITL, the image event carries the pictures.
func Images(ctx context.Context, hc *http.Client, req Request, endpoint string) *record.Record {
	c, failed := start(ctx, hc, &req, endpoint)
	if c == nil {
		return failed
	}
	if isEventStream(c.resp) {
		var ch chunk.Chunk
		end := c.events(func(ev sse.Event) bool {
			if !c.decode(ev, &ch) {
				return false
			}
			c.imageChunk(ev.Time, &ch)
			return true
		})
		return c.finish(end)
	}
	var ch chunk.Chunk
	at, ok := c.decodeBody(&ch)
	if !ok {
		return c.finish(at)
	}
	c.imageChunk(at, &ch)
	return c.finish(at)
}

// imageChunk takes an images response or an image edit event.
func (c *call) imageChunk(t time.Time, ch *chunk.Chunk) {
	c.b.SetRequestID(ch.ID)
	c.b.OnChunkStats(ch)
	if ch.Type == "ar_delta" {
		c.b.OnTextChunk(t, ch.Delta, ch.Usage)
	}
	for i := range ch.Data {
		d := &ch.Data[i]
		c.b.OnServerStats(d.StageDurations, float64(d.PeakMemoryMB))
		if len(d.B64JSON) > 0 {
			c.image(t, d.B64JSON)
		} else if len(d.URL) > 0 {
			c.image(t, d.URL)
		}
	}
}

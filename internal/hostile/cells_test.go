package hostile

import (
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// What every cell's scenario sets, and the bounds derived from it.
const (
	iterations     = 2
	stallTimeout   = 2 * time.Second
	requestTimeout = 4 * time.Second
	gracefulStop   = time.Second
	// maxDuration lets every request run to its timeout: no cell ends by its deadline.
	maxDuration = iterations * (requestTimeout + time.Second)
	// margin is there to catch hangs (a 30 s handshake or 60 s stall default), not to
	// time anything: a cell is killed only past maxDuration + gracefulStop + margin.
	margin = 10 * time.Second
	// parallel cells at most: most of a cell is waiting for a timeout, and two busy
	// cores still get through the cells that are not.
	parallel = 3
)

// want is what omnik makes of a fault on an endpoint: every request of the cell fails
// with kind ("" when it succeeds) and carries exactly these anomalies.
type want struct {
	kind      string
	anomalies []string
	// changed: a successful request's content (text, audio frames, images) is not the
	// healthy response's, as the fault meant.
	changed bool
}

// row is a fault's cells by endpoint; anyEndpoint stands for every endpoint the fault
// applies to that the row does not name.
type row map[Endpoint]want

const anyEndpoint Endpoint = "*"

var ok = want{}

func fails(kind string) want { return want{kind: kind} }

// matrix is the expected outcome of every cell.
var matrix = map[string]row{
	"healthy": {anyEndpoint: ok},

	"status_400_json":     {anyEndpoint: fails(record.KindHTTPStatus)},
	"status_500_json":     {anyEndpoint: fails(record.KindHTTPStatus)},
	"status_502_html":     {anyEndpoint: fails(record.KindHTTPStatus)},
	"status_503_non_utf8": {anyEndpoint: fails(record.KindHTTPStatus)},
	"ok_html":             {anyEndpoint: fails(record.KindMalformed), AudioStream: fails(record.KindHTTPStatus)},
	"empty_200":           {anyEndpoint: fails(record.KindTruncated), ChatJSON: fails(record.KindMalformed), Images: fails(record.KindMalformed)},

	"error_event":    {anyEndpoint: fails(record.KindStreamError)},
	"error_response": {anyEndpoint: fails(record.KindStreamError)},
	"malformed_json": {anyEndpoint: fails(record.KindMalformed)},
	"truncated_json": {anyEndpoint: fails(record.KindMalformed)},
	"wrong_types":    {anyEndpoint: fails(record.KindMalformed)},

	"reset_before_headers": {anyEndpoint: fails(record.KindConnect)},
	"reset_mid_stream":     {anyEndpoint: fails(record.KindReset)},
	"partial_headers":      {anyEndpoint: fails(record.KindTimeout), AudioStream: fails(record.KindTimeout)},
	"slow_headers":         {anyEndpoint: fails(record.KindTimeout), AudioStream: fails(record.KindTimeout)},
	"stall_mid_stream":     {anyEndpoint: fails(record.KindStall)},
	// The stall clock counts events on SSE and the websocket, reads on bodies.
	"slow_drip":    {anyEndpoint: fails(record.KindStall), ChatJSON: fails(record.KindTimeout), Images: fails(record.KindTimeout), SpeechRaw: fails(record.KindTimeout)},
	"short_body":   {anyEndpoint: fails(record.KindTruncated)},
	"missing_done": {anyEndpoint: fails(record.KindTruncated)},
	"fragmented":   {anyEndpoint: ok},

	"sse_crlf":      {anyEndpoint: ok},
	"sse_cr":        {anyEndpoint: ok},
	"sse_no_space":  {anyEndpoint: ok},
	"sse_multiline": {anyEndpoint: ok},
	"sse_comments":  {anyEndpoint: ok},
	// Speech SSE loses only its first line, an event: line the JSON's type stands in for.
	"sse_bom": {anyEndpoint: ok},
	// An event the stream ends inside is not dispatched (WHATWG): no terminator came.
	"sse_unended": {anyEndpoint: fails(record.KindTruncated)},

	"text_non_utf8": {anyEndpoint: ok},
	// 5 prompt tokens + 2³¹−1 is a total past any model's: usage_out_of_range too.
	"huge_usage": {anyEndpoint: {anomalies: []string{record.AnomalyUsageRange}},
		ChatStream: {anomalies: []string{record.AnomalyUsageRange, record.AnomalyUsage}},
		ChatJSON:   {anomalies: []string{record.AnomalyUsageRange, record.AnomalyUsage}},
		ImagesEdit: {anomalies: []string{record.AnomalyUsageRange, record.AnomalyUsage}},
		SpeechSSE:  {anomalies: []string{record.AnomalyUsageRange, record.AnomalyUsage}},
		SpeechRaw:  {anomalies: []string{record.AnomalyUsageRange, record.AnomalyUsage}}},
	"unknown_modality": {ChatStream: {anomalies: []string{record.AnomalyModality}}},

	"truncated_wav":       {anyEndpoint: fails(record.KindWAVBroken)},
	"corrupt_wav":         {anyEndpoint: fails(record.KindWAVBroken)},
	"wav_stream":          {anyEndpoint: ok},
	"corrupt_base64_head": {anyEndpoint: fails(record.KindMalformed)},
	// Audio base64 is checked in its header only (chunk.DecodeAudio): the length gives the frames.
	"corrupt_base64_tail": {anyEndpoint: ok, Images: fails(record.KindMalformed), ImagesEdit: fails(record.KindMalformed)},
	"truncated_image":     {anyEndpoint: fails(record.KindMalformed)},

	// Raw speech is read as it streams: 300 MB of it is just a long answer.
	"huge_payload":    {anyEndpoint: fails(record.KindOversized), SpeechRaw: {changed: true}, Images: fails(record.KindOversized)},
	"endless_trickle": {anyEndpoint: fails(record.KindTimeout)},
	"endless_flood": {anyEndpoint: fails(record.KindTimeout),
		ChatStream: {kind: record.KindTimeout, anomalies: []string{record.AnomalyTextCut}},
		ImagesEdit: {kind: record.KindTimeout, anomalies: []string{record.AnomalyTextCut}},
		ChatJSON:   fails(record.KindOversized), Images: fails(record.KindOversized)},
	"too_many_chunks": {anyEndpoint: fails(record.KindOversized)},
	"keepalive_only":  {anyEndpoint: fails(record.KindStall)},
}

// rssBound is the peak resident memory a cell's omnik stays under: 256 MiB, and 384 MiB
// on the image endpoints, whose body limit (64 MiB) is four times chat's.
func rssBound(ep Endpoint) int64 {
	if ep == Images || ep == ImagesEdit {
		return 384 << 20
	}
	return 256 << 20
}

// cell is one fault on one endpoint.
type cell struct {
	fault Fault
	ep    Endpoint
	want  want
}

// cells lists every cell, in the table's order.
func cells() []cell {
	var out []cell
	for _, f := range Faults {
		for _, ep := range Endpoints() {
			if w, ok := expected(f.Name, ep); ok && f.Applies(ep) {
				out = append(out, cell{fault: f, ep: ep, want: w})
			}
		}
	}
	return out
}

func expected(fault string, ep Endpoint) (want, bool) {
	r := matrix[fault]
	if w, ok := r[ep]; ok {
		return w, true
	}
	w, ok := r[anyEndpoint]
	return w, ok
}

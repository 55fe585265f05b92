package mock

import (
	"strconv"
	"time"
)

// The server's own profile of a request and its stream-edge snapshot, sent with the stage
// metrics (return_stage_metrics). Both come from the request's plan, so they follow the
// stage model and the load knee and are the same for the same request at the same load.

// peakMemoryMB is the request's simulated peak memory: a weights floor of 2 GiB per stage
// plus 0.5 MB per input token and per output unit (tokens, audio chunks, images).
func (pl *pipeline) peakMemoryMB() float64 {
	units := pl.tokensIn
	for _, sp := range pl.plans {
		units += sum(sp.units)
	}
	return float64(2048*len(pl.stages)) + 0.5*float64(units)
}

// edgeTransfer is the simulated time of one hand-off's connector put, and of the
// consumer's admission after it.
const edgeTransfer = 250 * time.Microsecond

// edgeSnapshot is one entry of the stream-edge snapshot, as vLLM-Omni's
// RequestStreamEdgeEvents.snapshot() builds it (vllm_omni/metrics/stream_edge.py).
type edgeSnapshot struct {
	FromStage      int               `json:"from_stage"`
	ToStage        int               `json:"to_stage"`
	SegmentIndex   int               `json:"segment_index"`
	FirstChunkSeq  int               `json:"first_chunk_seq"`
	ClockDomains   map[string]string `json:"clock_domains"`
	ProducerEmit   float64           `json:"producer_first_nonempty_emit_ms"`
	SendComplete   float64           `json:"edge_first_send_complete_ms"`
	ConsumerAccept float64           `json:"consumer_first_accept_ms"`
	ConsumerOutput float64           `json:"consumer_first_nonempty_output_ms"`
}

// streamEdges is the snapshot of the hand-offs whose consumer has output something:
// stage i's first output, its send, stage i+1's admission (its start, not before the
// send) and first output, in ms from the request's acceptance. A stage that waits for
// all of its upstream starts late, and its hand-off shows it.
func (pl *pipeline) streamEdges() map[string]edgeSnapshot {
	out := map[string]edgeSnapshot{}
	for i := 0; i+1 < len(pl.plans); i++ {
		from, to := pl.plans[i], pl.plans[i+1]
		if len(from.outputs) == 0 || len(to.outputs) == 0 || len(pl.stamps[i+1]) == 0 {
			continue
		}
		send := from.outputs[0] + edgeTransfer
		clocks := map[string]string{}
		for _, ev := range []string{"producer_first_nonempty_emit", "edge_first_send_complete", "consumer_first_accept", "consumer_first_nonempty_output"} {
			clocks[ev] = "orchestrator"
		}
		out[strconv.Itoa(i)+"->"+strconv.Itoa(i+1)+":0"] = edgeSnapshot{
			FromStage: i, ToStage: i + 1, ClockDomains: clocks,
			ProducerEmit: msOf(from.outputs[0]), SendComplete: msOf(send),
			ConsumerAccept: msOf(max(to.submit, send) + edgeTransfer), ConsumerOutput: msOf(to.outputs[0]),
		}
	}
	return out
}

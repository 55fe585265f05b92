package omni

import (
	"testing"
	"time"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

func TestSamplesCountBytesOnTheBuiltinDataMetrics(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	builtin := metrics.RegisterBuiltins(reg)
	m := RegisterMetrics(reg)
	ok := &record.Record{Endpoint: record.EndpointChat, Status: 200, Start: time.Now(), BytesSent: 120, BytesReceived: 4096}
	failed := &record.Record{Endpoint: record.EndpointChat, Status: 503, Start: time.Now(), BytesSent: 80, BytesReceived: 10,
		Err: &record.Error{Kind: record.KindHTTPStatus, Message: "HTTP 503"}}
	for _, tc := range []struct {
		r              *record.Record
		sent, received float64
	}{{ok, 120, 4096}, {failed, 80, 10}} {
		got := map[*metrics.Metric][]float64{}
		for _, s := range m.samples(tc.r) {
			got[s.Metric] = append(got[s.Metric], s.Value)
		}
		if s, r := got[builtin.DataSent], got[builtin.DataReceived]; len(s) != 1 || s[0] != tc.sent || len(r) != 1 || r[0] != tc.received {
			t.Errorf("status %d: data_sent %v data_received %v, want [%g] [%g]", tc.r.Status, s, r, tc.sent, tc.received)
		}
	}
}

func TestChatAgainstSimulatorCountsData(t *testing.T) {
	t.Parallel()
	k, _, _ := runScript(t, `import omni from 'omni';
export default async function () {
  await omni.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
}`)
	sent, received := k.values("data_sent", "", ""), k.values("data_received", "", "")
	if len(sent) != 1 || sent[0] < float64(len(`{"messages":[{"role":"user","content":"hi"}]}`)) || len(received) != 1 || received[0] < 100 {
		t.Errorf("data_sent %v data_received %v", sent, received)
	}
}

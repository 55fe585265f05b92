package testrun

import (
	"bytes"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// The progress line shows each scenario's requests, ok and failed: iterations whose
// requests fail still complete, so their count alone would look healthy. A request the
// run cut off is neither ok nor failed.
func TestProgressCountsEachScenariosRequests(t *testing.T) {
	t.Parallel()
	c := newRequestCounts()
	for _, r := range []*record.Record{
		{Scenario: "chat"}, {Scenario: "chat"}, {Scenario: "chat", Err: &record.Error{Kind: "http"}}, {Scenario: "tts"}, {},
		{Scenario: "tts", Err: &record.Error{Kind: record.KindInterrupted}}, // cut off by the run: neither
	} {
		c.Add(r)
	}
	var buf bytes.Buffer
	engine.NewProgress(&buf, engine.ProgressRequests(c.of)).Render([]engine.ScenarioProgress{
		{Name: "chat", State: "running"}, {Name: "tts", State: "running"}, {Name: "idle", State: "waiting"}})
	for _, want := range []string{"requests 2 ok 1 failed\n", "requests 1 ok 0 failed\n", "requests 0 ok 0 failed\n"} {
		if strings.Count(buf.String(), want) != 1 {
			t.Errorf("no line ends %q:\n%s", want, buf.String())
		}
	}
}

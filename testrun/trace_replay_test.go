package testrun

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omnik-dev/omnik/modules/omni/record"
)

// replayScript sends each entry's body tagged with its index; the baseline scenario, when
// the options have one, sends the same request on a constant-arrival-rate schedule.
const replayScript = `import omni from 'omni';
import exec from 'omnik/execution';
export const options = %s;
export default async function () {
  const e = exec.scenario.traceEntry;
  await omni.chat(omni.traceRequest(e), { tags: { entry: String(e.index) } });
}
export async function baseline() {
  await omni.chat({ messages: [{ role: 'user', content: 'ping' }], modalities: ['text'], max_tokens: 4 });
}
`

// recordsOf runs replayScript with options (%s for the trace's path) over a trace of
// lines, and returns the run's records by scenario.
func recordsOf(t *testing.T, options string, lines []string) map[string][]*record.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	byScenario := map[string][]*record.Record{}
	keep := record.SubscriberFunc(func(r *record.Record) {
		mu.Lock()
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r)
		mu.Unlock()
	})
	src := fmt.Sprintf(replayScript, fmt.Sprintf(options, strconv.Quote(path)))
	res := runScript(t, src, Options{Subscribers: []record.Subscriber{keep}}, nil)
	if res.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", res.code, res.stdout, res.log)
	}
	return byScenario
}

// entryOf is the trace index a replayed record was tagged with.
func entryOf(t *testing.T, r *record.Record) int {
	n, err := strconv.Atoi(r.Tags["entry"])
	if err != nil {
		t.Fatalf("record without its entry tag: %v", r.Tags)
	}
	return n
}

// lag is how late a record's request left against its intended start.
func lag(r *record.Record) time.Duration { return r.Start.Sub(r.IntendedStart) }

func medianLag(rs []*record.Record) time.Duration {
	lags := make([]time.Duration, len(rs))
	for i, r := range rs {
		lags[i] = lag(r)
	}
	slices.Sort(lags)
	return lags[len(lags)/2]
}

// The replayed requests were meant to start exactly at the trace's offsets (divided by
// speed) and left within the lag the arrival-rate executors show: the replay's median lag
// is within the largest lag of a constant-arrival-rate scenario running beside it, at the
// same rate on the same machine. The bound comes from that run, not from a wall clock.
func TestTraceReplayStartsAtTheTracesTimes(t *testing.T) {
	t.Parallel()
	offsets := []float64{0, 15, 40, 41.5, 90, 130, 170, 200, 260, 300, 340, 395, 450, 480, 530, 600, 610, 680, 720, 800, 850, 905, 960, 1000}
	lines := make([]string, len(offsets))
	for i, off := range offsets {
		lines[i] = fmt.Sprintf(`{"offset_ms": %v, "body": {"messages": [{"role": "user", "content": "entry %d"}], "modalities": ["text"], "max_tokens": %d}}`, off, i, 2+i%4)
	}
	// Reversed: the file's order is not the replay's.
	slices.Reverse(lines)
	for _, speed := range []float64{1, 2} {
		t.Run(fmt.Sprint("speed ", speed), func(t *testing.T) {
			t.Parallel()
			options := `{ scenarios: {
  replay: { executor: 'trace-replay', trace: %s, speed: ` + fmt.Sprint(speed) + `, preAllocatedVUs: 8 },
  baseline: { executor: 'constant-arrival-rate', exec: 'baseline', rate: ` + fmt.Sprint(24*speed) + `, duration: '` + fmt.Sprint(1/speed) + `s', preAllocatedVUs: 8 } } }`
			recs := recordsOf(t, options, lines)
			replay := recs["replay"]
			if len(replay) != len(offsets) || len(recs["baseline"]) != 24 {
				t.Fatalf("%d replayed and %d baseline requests, want %d and 24", len(replay), len(recs["baseline"]), len(offsets))
			}
			slices.SortFunc(replay, func(a, b *record.Record) int { return entryOf(t, a) - entryOf(t, b) })
			// The intended start on the run's monotonic timeline.
			intended := func(r *record.Record) time.Duration { return r.Offset - lag(r) }
			var worst time.Duration
			for i, r := range replay {
				want := time.Duration(offsets[i]*float64(time.Millisecond)/speed) - time.Duration(offsets[0]*float64(time.Millisecond)/speed)
				if got := intended(r) - intended(replay[0]); entryOf(t, r) != i || got < want-time.Microsecond || got > want+time.Microsecond {
					t.Errorf("entry %d meant to start at %v, want the trace's %v", entryOf(t, r), got, want)
				}
				if lag(r) < 0 || !r.OK() || r.Usage.Completion != 2+i%4 {
					t.Errorf("entry %d: lag %v, ok %v, %d tokens for the body's max_tokens %d", i, lag(r), r.OK(), r.Usage.Completion, 2+i%4)
				}
				worst = max(worst, lag(r))
			}
			var baselineWorst time.Duration
			for _, r := range recs["baseline"] {
				baselineWorst = max(baselineWorst, lag(r))
			}
			t.Logf("speed %v: start lag vs the trace median %v, max %v; constant-arrival-rate beside it max %v", speed, medianLag(replay), worst, baselineWorst)
			if m := medianLag(replay); m > baselineWorst {
				t.Errorf("median start lag %v, above the constant-arrival-rate scenario's largest, %v", m, baselineWorst)
			}
		})
	}
}

// Turns of one session due at once run one after another, in the trace's order, each
// starting after the previous one's response ended; other requests do not wait.
func TestTraceReplaySessionsRunTurnByTurn(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"timestamp": 0, "session_id": "a", "input_length": 30, "output_length": 6}`,
		`{"timestamp": 0, "session_id": "a", "input_length": 40, "output_length": 6}`,
		`{"timestamp": 0, "session_id": "b", "input_length": 30, "output_length": 6}`,
		`{"timestamp": 0, "input_length": 30, "output_length": 6}`,
		`{"timestamp": 0, "session_id": "a", "input_length": 50, "output_length": 6}`,
		`{"timestamp": 1, "session_id": "b", "input_length": 40, "output_length": 6}`,
		`{"timestamp": 1, "session_id": "a", "input_length": 60, "output_length": 6}`,
	}
	recs := recordsOf(t, `{ scenarios: { replay: { executor: 'trace-replay', trace: %s, preAllocatedVUs: 4 } } }`, lines)["replay"]
	if len(recs) != len(lines) {
		t.Fatalf("%d requests, want %d", len(recs), len(lines))
	}
	slices.SortFunc(recs, func(a, b *record.Record) int { return entryOf(t, a) - entryOf(t, b) })
	for _, turns := range [][]int{{0, 1, 4, 6}, {2, 5}} {
		for k := 1; k < len(turns); k++ {
			prev, cur := recs[turns[k-1]], recs[turns[k]]
			ended := prev.Start.Add(prev.End)
			if cur.Start.Before(ended) {
				t.Errorf("entry %d started %v before its session's previous turn (entry %d) ended", turns[k], ended.Sub(cur.Start), turns[k-1])
			}
			if waited := ended.Sub(cur.IntendedStart); lag(cur) < waited {
				t.Errorf("entry %d: lag %v, less than its %v wait for the previous turn", turns[k], lag(cur), waited)
			}
		}
	}
	if free := recs[3]; lag(free) > lag(recs[6]) {
		t.Errorf("the sessionless entry lagged %v, more than session a's last turn (%v)", lag(free), lag(recs[6]))
	}
}

package chunk

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Metrics is vLLM-Omni's per-chunk `metrics` object (with return_stage_metrics).
type Metrics struct {
	// StageMetrics holds every stage finished so far, keyed by stage id.
	StageMetrics   map[string]Stage `json:"stage_metrics"`
	NumTokensIn    int              `json:"num_tokens_in"`
	NumTokensOut   int              `json:"num_tokens_out"`
	StageDurations Durations        `json:"stage_durations"`
	PeakMemoryMB   Number           `json:"peak_memory_mb"`
	// StreamEdges is the stream-edge snapshot (vllm-project/vllm-omni #6472). Upstream
	// keeps it on the request's state and has not placed it in a response yet; omnik
	// reads it here, beside stage_metrics, where the simulator puts it.
	StreamEdges Edges `json:"stream_edges"`
}

// Stage is one stage's entry: its identity plus every numeric field and numeric list,
// so fields added by later servers (batch_*, audio_rtf, …) are kept without code changes.
type Stage struct {
	ID              int
	Name            string // stage_name
	OutputUnitType  string // output_unit_type
	FinalOutputType string // final_output_type
	FinishReason    string
	Values          map[string]float64   // numeric fields, stage_id included
	Lists           map[string][]float64 // numeric lists: inter_output_latencies_ms, vllm_itls_ms, …
}

// DisplayName is the stage's name, else stage_<id> as upstream names an unnamed stage.
func (s Stage) DisplayName() string {
	if s.Name != "" {
		return s.Name
	}
	return "stage_" + strconv.Itoa(s.ID)
}

// MarshalJSON writes the stage as the server sends it: one object of its names, numbers
// and lists, which UnmarshalJSON reads back.
func (s Stage) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(s.Values)+len(s.Lists)+4)
	for k, v := range s.Values {
		m[k] = v
	}
	for k, v := range s.Lists {
		m[k] = v
	}
	for k, v := range map[string]string{"stage_name": s.Name, "output_unit_type": s.OutputUnitType,
		"final_output_type": s.FinalOutputType, "finish_reason": s.FinishReason} {
		if v != "" {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *Stage) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = Stage{Values: make(map[string]float64, len(raw))}
	for k, v := range raw {
		v = bytes.TrimSpace(v)
		if len(v) == 0 {
			continue
		}
		switch c := v[0]; {
		case c == '"':
			var str string
			if json.Unmarshal(v, &str) != nil {
				continue
			}
			switch k {
			case "stage_name":
				s.Name = str
			case "output_unit_type":
				s.OutputUnitType = str
			case "final_output_type":
				s.FinalOutputType = str
			case "finish_reason":
				s.FinishReason = str
			}
		case c == '[':
			var list []float64
			// Lists of anything but numbers are not metrics; skip them.
			if json.Unmarshal(v, &list) == nil {
				if s.Lists == nil {
					s.Lists = make(map[string][]float64)
				}
				s.Lists[k] = list
			}
		case c == '-' || (c >= '0' && c <= '9'):
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				continue
			}
			s.Values[k] = f
			if k == "stage_id" {
				s.ID = int(f)
			}
		}
	}
	return nil
}

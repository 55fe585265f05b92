package testrun

import (
	"encoding/json"
	"runtime"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/modules/httpdebug"
)

// RunEnv says where and how a run ran, for the HTML report and omnik compare: which
// omnik, which target and model, which load. It never holds a credential: the target's
// user info and secret query parameters are redacted, scenario env is left out.
type RunEnv struct {
	Omnik     string        `json:"omnik_version"`
	Go        string        `json:"go_version"`
	Platform  string        `json:"platform"`
	Target    string        `json:"target,omitempty"`
	Simulated bool          `json:"simulated,omitempty"`
	Model     string        `json:"model,omitempty"` // "" when the server's first model was used
	Scenarios []ScenarioEnv `json:"scenarios"`
}

// ScenarioEnv is one scenario's load: its executor and that executor's settings.
type ScenarioEnv struct {
	Name     string          `json:"name"`
	Executor string          `json:"executor"`
	VUs      int64           `json:"vus"`
	MaxVUs   int64           `json:"max_vus"`
	Config   json.RawMessage `json:"config,omitempty"` // options.scenarios[name] without env
}

func (t *Test) env(plan *engine.ExecutionPlan) *RunEnv {
	cfg := t.module.Config()
	e := &RunEnv{Omnik: t.opts.Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Target: httpdebug.RedactRawURL(cfg.BaseURL), Simulated: t.opts.Omni.Mock != nil, Model: cfg.Model, Scenarios: []ScenarioEnv{}}
	if e.Omnik == "" {
		e.Omnik = "dev"
	}
	for _, sc := range plan.Scenarios {
		s := ScenarioEnv{Name: sc.Name, Executor: sc.Executor, VUs: sc.VUs, MaxVUs: sc.MaxVUs}
		if sc.Config != nil {
			c := *sc.Config
			c.Env = nil
			s.Config, _ = json.Marshal(c)
		}
		e.Scenarios = append(e.Scenarios, s)
	}
	return e
}

// RunAbout is the summary's run block (metrics.Summary.Run): what omnik compare needs to
// say whether two runs compare, from the run header.
type RunAbout struct {
	Script        string  `json:"script,omitempty"`
	ScriptSHA256  string  `json:"script_sha256,omitempty"`
	OptionsSHA256 string  `json:"options_sha256,omitempty"`
	RunID         string  `json:"run_id,omitempty"`
	Env           *RunEnv `json:"env,omitempty"`
}

func (h *runHeader) about() json.RawMessage {
	a := RunAbout{Script: h.Script, Env: h.Env}
	if p := h.Piece; p != nil {
		a.ScriptSHA256, a.OptionsSHA256, a.RunID = p.ScriptSHA256, p.OptionsSHA256, p.RunID
	}
	b, _ := json.Marshal(a)
	return b
}

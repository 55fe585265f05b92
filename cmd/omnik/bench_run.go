package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/omni/report"
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/cobra"
)

// runBench runs the embedded scenario with the flags as its parameters, exactly as
// `omnik run` would run a script, so bench and scripts share one engine, one set of
// metrics and one summary.
func runBench(cmd *cobra.Command, f *benchFlags, args []string) error {
	if err := f.benchArgs(args); err != nil {
		return err
	}
	p, err := f.plan()
	if err != nil {
		return err
	}
	if f.printScript {
		_, err := fmt.Fprint(cmd.OutOrStdout(), p.printed(benchCommandLine(os.Args[min(2, len(os.Args)):])))
		return err
	}
	r := &f.run
	r.omni.percentileMetrics = f.percentileMetrics
	r.omni.metricPercentiles = f.metricPercentiles
	r.omni.noStageSummary = !f.printStage
	slos, err := report.ParseGoodput(f.goodput)
	if err != nil {
		return engine.Invalid(err)
	}
	// Only --save-detailed keeps every request in memory, for its per-request arrays.
	r.omni.bench = report.SectionOptions{Goodput: slos, MaxConcurrency: f.maxConcurrency, RequestRate: p.rate,
		Detailed: f.saveDetailed}
	o, err := r.options(cmd)
	if err != nil {
		return err
	}
	// Known before the script loads, so its dataset() can calibrate against the server.
	o.Omni.BaseURL, o.Omni.Model = p.baseURL, p.model
	o.Script = testrun.Script{Name: "omnik-bench.js", Source: []byte(benchJS), Options: []byte(mustJSON(p.options)),
		JS: []js.Option{p.module()}}
	metadata, err := keyValues("--metadata", f.metadata)
	if err != nil {
		return err
	}
	if f.saveResult || f.saveDetailed {
		if f.resultDir != "" {
			if err := os.MkdirAll(f.resultDir, 0o755); err != nil {
				return engine.Invalid(fmt.Errorf("--result-dir: %w", err))
			}
		}
		o.AfterSummary = func(sec *report.Section, m *omni.Module) error { return f.writeResult(sec, m, p, metadata) }
	}
	// The dataset loads before the script, so a malformed file is reported as itself.
	o.BeforeLoad = func(m *omni.Module) error {
		var spec map[string]any
		if err := json.Unmarshal([]byte(mustJSON(p.params.Dataset)), &spec); err != nil {
			return err
		}
		return m.LoadDataset(spec)
	}
	return runTest(o)
}

// writeResult writes --save-result: vllm's keys and file name, omnik's own under "omnik".
func (f *benchFlags) writeResult(sec *report.Section, m *omni.Module, p *benchPlan, metadata map[string]string) error {
	model := p.model
	if model == "" {
		model = m.Model()
	}
	info := report.RunInfo{Date: time.Now(), EndpointType: p.backend, Backend: p.backend, Label: f.label,
		ModelID: model, TokenizerID: model, NumPrompts: f.numPrompts, Metadata: metadata, Burstiness: f.burstiness}
	result, name, ok := sec.SaveResult(info)
	if !ok {
		return fmt.Errorf("--save-result: no request finished, nothing to save")
	}
	if f.resultFilename != "" {
		name = f.resultFilename
	}
	path := filepath.Join(f.resultDir, name)
	if err := testrun.WriteFile(path, func(w io.Writer) error { return report.WriteResult(w, result) }); err != nil {
		return fmt.Errorf("--save-result: %w", err)
	}
	return nil
}

// benchArgs takes vllm's space-separated list forms: `--goodput ttft:500 tpot:50` and
// `--metadata a=1 b=2` leave their later items as arguments.
func (f *benchFlags) benchArgs(args []string) error {
	for _, a := range args {
		switch {
		case strings.Contains(a, "=") && len(f.metadata) > 0:
			f.metadata = append(f.metadata, a)
		case strings.Contains(a, ":") && len(f.goodput) > 0:
			f.goodput = append(f.goodput, a)
		default:
			return &engine.OptionsError{Msg: fmt.Sprintf("unexpected argument %q: omnik bench takes flags only (KEY:ms after --goodput, KEY=VALUE after --metadata)", a)}
		}
	}
	return nil
}

// benchCommandLine is the command, for the script's first comment line: arguments that a
// shell would split, or that hold a line break, are quoted, so the comment stays one line.
func benchCommandLine(args []string) string {
	parts := []string{"omnik", "bench"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\r\n\"'`$\\|&;<>(){}*?[]#~!") || strings.ContainsFunc(a, unicode.IsSpace) || !utf8.ValidString(a) {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

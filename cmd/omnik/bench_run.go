package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/omnik-dev/omnik/modules/httpdebug"
	"io"
	"net/url"
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
func runBench(cmd *cobra.Command, f *benchFlags) error {
	p, err := f.plan()
	if err != nil {
		return err
	}
	if f.printScript {
		_, err := fmt.Fprint(cmd.OutOrStdout(), p.printed(benchCommandLine(os.Args[min(2, len(os.Args)):])))
		return err
	}
	r := &f.run
	r.quiet = r.quiet || f.disableTQDM
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
	if f.saveResult || f.saveDetailed || f.appendResult {
		if f.resultDir != "" {
			if err := os.MkdirAll(f.resultDir, 0o755); err != nil {
				return engine.Invalid(fmt.Errorf("--result-dir: %w", err))
			}
		}
		o.AfterSummary = func(sec *report.Section, m *omni.Module) error { return f.writeResult(sec, m, p, metadata) }
	}
	o.Subscribers = append(o.Subscribers, p.outcomes)
	// The dataset loads before the script, so a malformed file is reported as itself.
	o.BeforeLoad = func(m *omni.Module) error {
		// Calibration's /tokenize goes with the requests' headers (and TLS settings, which
		// the flags set already).
		cfg := m.Config()
		cfg.Headers = p.headers
		if err := m.Configure(cfg); err != nil {
			return err
		}
		var spec map[string]any
		if err := json.Unmarshal([]byte(mustJSON(p.params.Dataset)), &spec); err != nil {
			return err
		}
		samples, err := m.LoadDataset(spec)
		if err != nil {
			return err
		}
		return p.checkSamples(samples)
	}
	return p.outcomes.verdict(runTest(o), o.Log)
}

// writeResult writes --save-result: vllm's keys and file name, omnik's own under "omnik";
// --append-result adds it to the file's end instead.
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
	write := func(w io.Writer) error { return report.WriteResult(w, result) }
	save := testrun.WriteFile
	if f.appendResult {
		save = appendFile
	}
	if err := save(path, write); err != nil {
		return fmt.Errorf("--save-result: %w", err)
	}
	return nil
}

// appendFile writes at the end of path, on a line of its own: vllm's --append-result
// makes a file of one result a line.
func appendFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if !endsLine(f) {
		_, err = f.Write([]byte("\n"))
	}
	if err == nil {
		err = write(f)
	}
	return errors.Join(err, f.Close())
}

// endsLine reports whether f is empty or ends with a line break (a file vllm wrote ends
// without one).
func endsLine(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return true
	}
	last := make([]byte, 1)
	_, err = f.ReadAt(last, st.Size()-1)
	return err != nil || last[0] == '\n'
}

// benchCommandLine is the command, for the script's first comment line: arguments that a
// shell would split, or that hold a line break, are quoted, so the comment stays one line.
func benchCommandLine(args []string) string {
	parts := []string{"omnik", "bench"}
	inHeaders := false
	for _, a := range args {
		// --header K=V … may carry a credential: the printed line never does.
		switch {
		case a == "--header":
			inHeaders = true
		case strings.HasPrefix(a, "--header="):
			a = "--header=" + redactHeaderPair(strings.TrimPrefix(a, "--header="))
		case strings.HasPrefix(a, "-"):
			inHeaders = false
		case inHeaders:
			a = redactHeaderPair(a)
		}
		if flag, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(flag, "--") {
			a = flag + "=" + redactURLArg(value)
		} else {
			a = redactURLArg(a)
		}
		if a == "" || strings.ContainsAny(a, " \t\r\n\"'`$\\|&;<>(){}*?[]#~!") || strings.ContainsFunc(a, unicode.IsSpace) || !utf8.ValidString(a) {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// redactURLArg is an argument with the user info and credential query parameters of a
// URL redacted; anything that is not an http(s) URL is left as it is.
func redactURLArg(a string) string {
	u, err := url.Parse(a)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return a
	}
	return httpdebug.RedactURL(u)
}

// redactHeaderPair is a --header KEY=VALUE with a credential's value redacted.
func redactHeaderPair(kv string) string {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return kv
	}
	return k + "=" + httpdebug.RedactHeader(strings.TrimSpace(k), strings.TrimSpace(v))
}

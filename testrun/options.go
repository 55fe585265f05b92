// Package testrun is one test run as a library value: it loads a script with its layered
// options, wires the run's result stream (records → metrics, the Serving/Stage section
// and the outputs), runs the engine, evaluates thresholds, prints and writes the summary
// and decides the exit code. `omnik run`, `omnik bench` and tests start runs through it,
// several in one process if they like: it keeps no global state. Report re-reports a
// result file through the same views (report.go).
package testrun

import (
	"encoding/json"
	"io"
	"log/slog"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/mock"
	"github.com/omnik-dev/omnik/modules/omni"
	"github.com/omnik-dev/omnik/modules/omni/record"
	"github.com/omnik-dev/omnik/modules/omni/report"
	"github.com/omnik-dev/omnik/modules/tlsclient"
)

// Options are everything one run takes. The zero value of each field is its default.
type Options struct {
	Script Script
	// Env are -e KEY=VALUE pairs, set in __ENV over the process environment.
	Env map[string]string
	// Config is a --config file of options, the lowest layer after the defaults.
	Config string
	// Flags is the options layer the caller sets over the script's and the environment's
	// (the command line's).
	Flags engine.Options
	// Thresholds are --threshold expressions, judged with the script's.
	Thresholds []string
	// OutcomeScenario, when set, is the scenario whose dropped arrivals and schedule lag
	// the Outcome reports (omnik sweep's swept one); otherwise the run's.
	OutcomeScenario string
	// Warmup leaves the first part of the scenarios out of the summary, the thresholds and
	// the result files: they measure from Warmup after the scenarios began (omnik sweep's
	// steps). Its requests are counted in the End line.
	Warmup time.Duration
	// Segment runs only that slice of the test; the zero value is the whole test.
	Segment engine.Segment
	// RunID names the distributed run this piece belongs to (omnik merge refuses pieces
	// of different runs); StartAt, when set, is the time zero every piece waits for.
	RunID   string
	StartAt time.Time
	// NoThresholds judges no threshold (exit 99 and abortOnFail are off): a piece of a
	// distributed run leaves them to omnik merge, which reads them from its result file.
	NoThresholds bool
	// Outs are --out specs (json=FILE, csv=FILE).
	Outs          []string
	SummaryExport string // write the summary as JSON here
	NoSummary     bool   // print no end-of-test summary
	Quiet         bool   // no progress lines
	// NoVerdictLine leaves out the error line naming the crossed thresholds: the caller
	// says it (omnik sweep's step lines).
	NoVerdictLine bool
	// HTTPDebug is --http-debug: "" (off), "headers" or "full" (bodies too), printed to
	// Stderr for omni and omnik/http calls alike, credentials redacted.
	HTTPDebug string
	Omni      OmniOptions
	// TrendBudget is how many values every distribution keeps exactly, the metrics' and
	// the Serving block's alike; 0 is metrics.DefaultTrendBudget.
	TrendBudget int
	// Version is omnik's, for the result file's and the report's environment.
	Version string

	Stdout, Stderr io.Writer
	Log            *slog.Logger

	// BeforeLoad runs before the script loads (omnik bench loads its dataset there).
	BeforeLoad func(*omni.Module) error
	// Subscribers are views of the caller's on the run's record stream (omnik bench's
	// verdict), fed after the run's own.
	Subscribers []record.Subscriber
	// AfterSummary runs once the summary is out (omnik bench writes --save-result there).
	AfterSummary func(*report.Section, *omni.Module) error

	// clientSampler and clientCores, when set, stand for the process's own load and
	// cores: tests saturate a client without burning a CPU.
	clientSampler engine.ClientSampler
	clientCores   int
}

// Script is the script to run: a file, or a script held in memory.
type Script struct {
	Path string
	// Name, Source and Options describe an in-memory script: its name for messages and
	// relative paths, its text, and the options it stands for (the `options` it would
	// export). JS adds modules only it imports.
	Name    string
	Source  []byte
	Options json.RawMessage
	JS      []js.Option
}

// OmniOptions configure the omni module and its summary blocks.
type OmniOptions struct {
	// BaseURL and Model override options.omni and OMNI_BASE_URL.
	BaseURL, Model string
	// InsecureSkipTLSVerify, when set, overrides the script's (--insecure-skip-tls-verify).
	InsecureSkipTLSVerify *bool
	// TLS overrides the script's TLS files (--tls-ca-file, --tls-cert, --tls-key), as
	// tlsclient.Files.Over says. The omni module and omnik/http both follow them.
	TLS tlsclient.Files
	// Mock, when set, is the simulator to run against: the run starts it on loopback,
	// points every client at it and closes it at the end.
	Mock *mock.Server
	// Section shapes the Serving/Stage blocks; the run fills in its scenarios.
	Section report.SectionOptions
	// ServerMetrics is the server's page to scrape during the run (server.go).
	ServerMetrics ServerMetricsOptions
}

func (o *Options) defaults() {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.TrendBudget <= 0 {
		o.TrendBudget = metrics.DefaultTrendBudget
	}
	o.Omni.Section.TrendBudget = o.TrendBudget
}

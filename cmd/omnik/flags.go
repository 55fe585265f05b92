package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// testFlags are the flags `run` and `inspect` share: they become the CLI options layer.
// `sweep` takes the script's part only: it sets the load itself.
type testFlags struct {
	load       bool // the load flags are registered
	vus        int64
	duration   string
	iterations int64
	stages     []string
	env        []string
	tags       []string
	config     string
	thresholds []string
	noColor    bool
	segment    string
	sequence   string
}

func (f *testFlags) register(fs *pflag.FlagSet) {
	f.load = true
	fs.Int64VarP(&f.vus, "vus", "u", 0, "number of VUs (with --duration: a constant-vus scenario)")
	fs.StringVarP(&f.duration, "duration", "d", "", "test duration, e.g. 30s, 5m")
	fs.Int64VarP(&f.iterations, "iterations", "i", 0, "total iterations shared by the VUs")
	fs.StringArrayVarP(&f.stages, "stage", "s", nil, "ramping stage DURATION:TARGET (repeatable)")
	f.registerScript(fs)
	fs.StringVar(&f.segment, "execution-segment", "0:1", "run only this slice of the test, e.g. 1/4:1/2 (one of several instances); auto: piece JOB_COMPLETION_INDEX of OMNIK_SEGMENTS (a Kubernetes Indexed Job)")
	fs.StringVar(&f.sequence, "execution-segment-sequence", "", "all the pieces' boundaries, e.g. 0,1/3,1/2,1: needed when pieces differ in size")
}

// registerScript registers the flags that are not the load: -e, tags, --config,
// --threshold, --no-color.
func (f *testFlags) registerScript(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.env, "env", "e", nil, "set __ENV.KEY=VALUE (repeatable)")
	fs.StringArrayVar(&f.tags, "tag", nil, "add a tag NAME=VALUE to every sample (repeatable)")
	fs.StringVarP(&f.config, "config", "c", "", "JSON file with options (lowest precedence after defaults)")
	fs.StringArrayVar(&f.thresholds, "threshold", nil, "threshold EXPR like 'ttfc.p99 < 900' (repeatable; exit 99 when one fails)")
	fs.BoolVar(&f.noColor, "no-color", false, "no colours (NO_COLOR is respected too)")
}

// apply maps the flags onto a run's options: the CLI layer, -e, --config, --threshold and
// the execution segment.
func (f *testFlags) apply(o *testrun.Options, cmd *cobra.Command) error {
	var err error
	if o.Flags, err = f.cliLayer(cmd.Flags()); err != nil {
		return err
	}
	if o.Env, err = keyValues("-e", f.env); err != nil {
		return err
	}
	if o.Segment, err = f.executionSegment(); err != nil {
		return err
	}
	o.Config, o.Thresholds = f.config, f.thresholds
	return nil
}

// cliLayer turns the flags that were set into an options layer.
func (f *testFlags) cliLayer(fs *pflag.FlagSet) (engine.Options, error) {
	o := engine.Options{Source: "command-line flags"}
	if f.load {
		if err := f.loadLayer(fs, &o); err != nil {
			return o, err
		}
	}
	if len(f.tags) > 0 {
		tags, err := keyValues("--tag", f.tags)
		if err != nil {
			return o, err
		}
		o.Tags = tags
	}
	if fs.Changed("no-color") {
		o.NoColor = &f.noColor
	}
	return o, nil
}

// loadLayer sets the load flags that were set.
func (f *testFlags) loadLayer(fs *pflag.FlagSet, o *engine.Options) error {
	if fs.Changed("vus") {
		o.VUs = &f.vus
	}
	if fs.Changed("duration") {
		d, err := engine.ParseDuration(f.duration)
		if err != nil {
			return &engine.OptionsError{Msg: fmt.Sprintf("--duration %q: %v", f.duration, err)}
		}
		o.Duration = &d
	}
	if fs.Changed("iterations") {
		o.Iterations = &f.iterations
	}
	if len(f.stages) > 0 {
		st, err := engine.ParseStages(f.stages)
		if err != nil {
			return &engine.OptionsError{Msg: "--stage: " + err.Error()}
		}
		o.Stages = st
	}
	return nil
}

// keyValues reads KEY=VALUE pairs.
func keyValues(flag string, pairs []string) (map[string]string, error) {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, &engine.OptionsError{Msg: fmt.Sprintf("%s %q: expected KEY=VALUE", flag, p)}
		}
		m[k] = v
	}
	return m, nil
}

// executionSegment parses --execution-segment.
func (f *testFlags) executionSegment() (engine.Segment, error) {
	if f.segment == "" { // commands that do not offer the flag (bench) run the whole test
		return engine.FullSegment(), nil
	}
	if f.segment == "auto" {
		if f.sequence != "" {
			return engine.Segment{}, &engine.OptionsError{Msg: "--execution-segment auto makes equal pieces: it takes no --execution-segment-sequence"}
		}
		return indexedSegment(os.Getenv)
	}
	seg, err := engine.ParseSegmentSequence(f.segment, f.sequence)
	if err != nil {
		return seg, &engine.OptionsError{Msg: "--execution-segment: " + err.Error()}
	}
	return seg, nil
}

// indexedSegment is --execution-segment auto: the piece a Kubernetes Indexed Job's pod
// runs, from the index the Job sets (JOB_COMPLETION_INDEX) and the completion count the
// manifest sets beside it (OMNIK_SEGMENTS), which Kubernetes does not expose.
func indexedSegment(getenv func(string) string) (engine.Segment, error) {
	index, err := strconv.ParseInt(getenv("JOB_COMPLETION_INDEX"), 10, 64)
	if err != nil {
		return engine.Segment{}, &engine.OptionsError{Msg: fmt.Sprintf("--execution-segment auto: JOB_COMPLETION_INDEX %q is not an index (run in an Indexed Job, or set it)", getenv("JOB_COMPLETION_INDEX"))}
	}
	count, err := strconv.ParseInt(getenv("OMNIK_SEGMENTS"), 10, 64)
	if err != nil {
		return engine.Segment{}, &engine.OptionsError{Msg: fmt.Sprintf("--execution-segment auto: OMNIK_SEGMENTS %q is not a count (set it to the Job's completions)", getenv("OMNIK_SEGMENTS"))}
	}
	seg, err := engine.IndexedSegment(index, count)
	if err != nil {
		return seg, &engine.OptionsError{Msg: "--execution-segment auto: " + err.Error()}
	}
	return seg, nil
}

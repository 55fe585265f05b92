package main

import (
	"fmt"
	"github.com/omnik-dev/omnik/engine"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/omnik-dev/omnik/mock"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// mockFlags configure the simulator, for `omnik mock` and `omnik run --mock`.
type mockFlags struct {
	fs      *pflag.FlagSet
	prefix  string
	knee    int
	openAI  bool
	profile string
	config  string
	seed    int64
	speed   float64
	faults  string
	lane    string
}

func (f *mockFlags) register(fs *pflag.FlagSet, prefix string) {
	f.fs, f.prefix = fs, prefix
	fs.IntVar(&f.knee, prefix+"knee", 8, "simulator: requests in flight before per-unit latency grows")
	fs.BoolVar(&f.openAI, prefix+"openai-audio", false, "simulator: stream chat audio OpenAI-style (delta.audio)")
	fs.StringVar(&f.profile, prefix+"profile", "", "simulator profile: "+strings.Join(mock.ProfileNames(), ", ")+" (default: all)")
	fs.StringVar(&f.config, prefix+"config", "", "simulator JSON config file")
	fs.Int64Var(&f.seed, prefix+"seed", 1, "simulator seed (text, audio, jitter, faults)")
	fs.Float64Var(&f.speed, prefix+"speed", 1, "simulator speed-up: 10 runs every delay ten times faster")
	fs.StringVar(&f.lane, prefix+"realtime-lane", "", "simulator: what /v1/realtime speaks without ?duplex=1: vllm-omni (default) or openai")
	fs.StringVar(&f.faults, prefix+"faults", "", "inject faults, e.g. 'http500,p=0.05;stall,p=0.01,delay=3s' (docs/mock.md)")
}

func (f *mockFlags) server() (*mock.Server, error) {
	var opts []mock.Option
	if f.config != "" {
		cfg, err := mock.LoadConfig(f.config)
		if err != nil {
			return nil, err
		}
		opts = append(opts, mock.WithConfig(cfg))
	}
	if f.profile != "" {
		opts = append(opts, mock.WithProfile(f.profile))
	}
	// Flags override the config file only when given.
	changed := func(name string) bool { return f.fs != nil && f.fs.Changed(f.prefix+name) }
	if changed("seed") {
		opts = append(opts, mock.WithSeed(f.seed))
	}
	if changed("speed") {
		opts = append(opts, mock.WithSpeed(f.speed))
	}
	if changed("knee") {
		opts = append(opts, mock.WithLoadCurve(f.knee, mock.DefaultConfig().LoadSlope))
	}
	if changed("openai-audio") {
		opts = append(opts, mock.WithOpenAIAudio(f.openAI))
	}
	if changed("realtime-lane") {
		opts = append(opts, mock.WithRealtimeLane(f.lane))
	}
	if f.faults != "" {
		fs, err := mock.ParseFaults(f.faults)
		if err != nil {
			return nil, fmt.Errorf("faults: %w", err)
		}
		opts = append(opts, mock.WithFaults(fs...))
	}
	return mock.New(opts...)
}

func newMockCommand() *cobra.Command {
	var f mockFlags
	var addr string
	cmd := &cobra.Command{
		Use:   "mock",
		Short: "Serve the simulated vLLM-Omni server (chat, images, speech, websocket audio)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.server()
			if err != nil {
				return engine.Invalid(err)
			}
			url, err := s.Start(addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "omnik mock: simulated vLLM-Omni serving %v at %s (Ctrl-C to stop)\n", s.Models(), url)
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			<-sig
			return s.Close()
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8000", "address to listen on")
	f.register(cmd.Flags(), "")
	return cmd
}

package main

import (
	"encoding/json"
	"maps"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"

	"github.com/omnik-dev/omnik/engine"
	"github.com/spf13/cobra"
)

func newInspectCommand() *cobra.Command {
	var f testFlags
	var of omniFlags
	cmd := &cobra.Command{
		Use:   "inspect [flags] SCRIPT",
		Short: "Print the consolidated options and the execution plan as JSON, without running",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log := newLogger(cmd.ErrOrStderr(), false)
			// The same modules as run, so omni scripts load and thresholds on omni
			// metrics are checked; nothing is sent.
			registry := metrics.NewRegistry()
			omni, err := of.setup(registry, log, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer omni.close()
			t, err := loadTest(args[0], &f, cmd.Flags(), log, append([]js.Option{js.WithRegistry(registry)}, omni.jsOptions...)...)
			if err != nil {
				return err
			}
			seg, err := f.executionSegment()
			if err != nil {
				return err
			}
			plan, err := engine.NewPlan(t.opts, seg)
			if err != nil {
				return err
			}
			if _, err := parseThresholds(t, f.thresholds); err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(map[string]any{
				"script":  t.runner.Path(),
				"exports": t.runner.Exports(),
				"options": redacted(t.opts),
				"plan":    plan,
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// redacted hides options.omni.apiKey: a key never appears in output.
func redacted(o engine.Options) engine.Options {
	raw, ok := o.Modules["omni"]
	if !ok {
		return o
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m["apiKey"] == nil {
		return o
	}
	m["apiKey"] = "(redacted)"
	b, _ := json.Marshal(m)
	mods := maps.Clone(o.Modules)
	mods["omni"] = b
	o.Modules = mods
	return o
}

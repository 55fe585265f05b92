package main

import (
	"encoding/json"
	"maps"
	"strings"

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

// redacted hides credentials in options.omni: the API key (whatever its spelling, as
// the JSON decoding ignores case) and header values that carry a secret.
func redacted(o engine.Options) engine.Options {
	raw, ok := o.Modules["omni"]
	if !ok {
		return o
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return o
	}
	for k, v := range m {
		switch {
		case strings.EqualFold(k, "apiKey"):
			m[k] = "(redacted)"
		case strings.EqualFold(k, "headers"):
			if h, ok := v.(map[string]any); ok {
				for name := range h {
					if secretHeader(name) {
						h[name] = "(redacted)"
					}
				}
			}
		}
	}
	b, _ := json.Marshal(m)
	mods := maps.Clone(o.Modules)
	mods["omni"] = b
	o.Modules = mods
	return o
}

func secretHeader(name string) bool {
	n := strings.ToLower(name)
	return n == "authorization" || strings.Contains(n, "key") || strings.Contains(n, "token") || strings.Contains(n, "secret")
}

package main

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/testrun"
	"github.com/spf13/cobra"
)

func newInspectCommand() *cobra.Command {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "inspect [flags] SCRIPT",
		Short: "Print the consolidated options and the execution plan as JSON, without running",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The same loading as run, so omni scripts load and thresholds on omni
			// metrics are checked; nothing is sent.
			o := testrun.Options{Script: testrun.Script{Path: args[0]}, Stderr: cmd.ErrOrStderr(), Log: newLogger(cmd.ErrOrStderr(), false)}
			if err := f.apply(&o, cmd); err != nil {
				return err
			}
			t, err := testrun.Load(o)
			if err != nil {
				return err
			}
			defer t.Close()
			plan, err := t.Plan()
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(map[string]any{
				"script":  t.Script().Path(),
				"exports": t.Script().Exports(),
				"options": redacted(t.Options()),
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

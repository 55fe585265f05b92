package main

import (
	"encoding/json"

	"github.com/omnik-dev/omnik/engine"
	"github.com/spf13/cobra"
)

func newInspectCommand() *cobra.Command {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "inspect [flags] SCRIPT",
		Short: "Print the consolidated options and the execution plan as JSON, without running",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log := newLogger(cmd.ErrOrStderr(), false)
			t, err := loadTest(args[0], &f, cmd.Flags(), log)
			if err != nil {
				return err
			}
			plan, err := engine.NewPlan(t.opts, engine.FullSegment())
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
				"options": t.opts,
				"plan":    plan,
			})
		},
	}
	f.register(cmd.Flags())
	return cmd
}

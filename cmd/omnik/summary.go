package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/omnik-dev/omnik/js"
	"github.com/omnik-dev/omnik/metrics"
	"golang.org/x/term"
)

const handleSummaryTimeout = 2 * time.Minute

func buildSummary(t *loadedTest, snap *metrics.Snapshot, ev metrics.Evaluation, d time.Duration, sections []metrics.Section, stdout io.Writer) *metrics.Summary {
	unit := "ms"
	if t.opts.SummaryTimeUnit != nil {
		unit = *t.opts.SummaryTimeUnit
	}
	opts := metrics.SummaryOptions{TrendStats: t.trendStats, TimeUnit: unit, NoColor: noColor(t.opts) || !isTerminal(stdout)}
	return metrics.NewSummary(snap, ev, d, opts, sections...)
}

// emitSummary prints the summary (or what handleSummary returns instead) and writes
// --summary-export. A failing handleSummary falls back to the default summary; its
// error is returned so the run exits 107.
func emitSummary(r *js.Runner, s *metrics.Summary, f *runFlags, stdout, stderr io.Writer, log *slog.Logger) error {
	if f.summaryExport != "" {
		if err := writeFile(f.summaryExport, s.WriteJSON); err != nil {
			log.Error("--summary-export", "err", err)
		}
	}
	var hsErr error
	if r.HasExport("handleSummary") {
		data, err := s.Map()
		if err == nil {
			var out map[string][]byte
			var ok bool
			out, ok, err = r.HandleSummary(context.Background(), data, handleSummaryTimeout)
			if err == nil && ok {
				return writeSummaryOutputs(out, stdout, stderr)
			}
		}
		if err != nil {
			log.Error("handleSummary failed; printing the default summary", "err", err)
			hsErr = err
		}
	}
	if !f.noSummary {
		if err := s.WriteText(stdout); err != nil {
			return err
		}
	}
	return hsErr
}

// writeSummaryOutputs writes handleSummary's {stdout|stderr|path: content}.
func writeSummaryOutputs(out map[string][]byte, stdout, stderr io.Writer) error {
	for name, content := range out {
		var err error
		switch name {
		case "stdout":
			_, err = stdout.Write(content)
		case "stderr":
			_, err = stderr.Write(content)
		default:
			err = writeFile(name, func(w io.Writer) error { _, err := w.Write(content); return err })
		}
		if err != nil {
			return fmt.Errorf("handleSummary output %q: %w", name, err)
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// isTerminal reports whether w is a terminal; colours go only to terminals.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// checkWritable fails when a file could not be created at path, without touching a file
// already there (a previous run's summary stays until this run replaces it).
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".omnik-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

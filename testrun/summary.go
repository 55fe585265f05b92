package testrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
	"golang.org/x/term"
)

const handleSummaryTimeout = 2 * time.Minute

// emitSummary prints the summary (or what handleSummary returns instead) and writes
// SummaryExport. A failing handleSummary falls back to the default summary; its error is
// returned so the run exits 107.
func (t *Test) emitSummary(s *metrics.Summary) error {
	o := &t.opts
	exportSummary(s, o.SummaryExport, o.Log)
	var hsErr error
	if r := t.runner; r.HasExport("handleSummary") {
		out, ok, err := r.HandleSummary(context.Background(), s, handleSummaryTimeout)
		if err == nil && ok {
			t.warnAside(s)
			return writeSummaryOutputs(out, o.Stdout, o.Stderr)
		}
		if err != nil {
			o.Log.Error("handleSummary failed; printing the default summary", "err", err)
			hsErr = err
		}
	}
	if o.NoSummary {
		t.warnAside(s)
	} else if err := s.WriteText(o.Stdout); err != nil {
		return err
	}
	return hsErr
}

// warnAside logs the summary's warnings when the default summary, which ends with them,
// is not printed; a caller that says them itself (NoVerdictLine: omnik sweep's step
// lines) keeps them out.
func (t *Test) warnAside(s *metrics.Summary) {
	if t.opts.NoVerdictLine {
		return
	}
	for _, w := range s.Warnings {
		t.opts.Log.Warn(w)
	}
}

// crossed names the failed thresholds, as k6 does ("thresholds on metrics … have been
// crossed"), with each expression and what it observed.
func crossed(failed []metrics.ThresholdResult) string {
	var names, parts []string
	for _, r := range failed {
		name := r.Threshold.SinkName()
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		observed := strconv.FormatFloat(r.Observed, 'g', 6, 64)
		if r.NoData {
			observed = "no data"
		}
		parts = append(parts, fmt.Sprintf("%s: %s (observed %s)", name, r.Threshold.Source, observed))
	}
	return fmt.Sprintf("thresholds on metrics '%s' have been crossed: %s", strings.Join(names, "', '"), strings.Join(parts, "; "))
}

// exportSummary writes --summary-export, when asked; a failure is logged, the run goes on.
func exportSummary(s *metrics.Summary, path string, log interface{ Error(string, ...any) }) {
	if path == "" {
		return
	}
	if err := WriteFile(path, s.WriteJSON); err != nil {
		log.Error("--summary-export", "err", err)
	}
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
			err = WriteFile(name, func(w io.Writer) error { _, err := w.Write(content); return err })
		}
		if err != nil {
			return fmt.Errorf("handleSummary output %q: %w", name, err)
		}
	}
	return nil
}

// WriteFile creates path (and its directory) and fills it with write; omnik bench writes
// its --save-result file with it.
func WriteFile(path string, write func(io.Writer) error) error {
	if err := makeDir(path); err != nil {
		return err
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

// ColorsOff reports whether what goes to w goes without colours: --no-color (set),
// NO_COLOR, or w not a terminal.
func ColorsOff(set bool, w any) bool { return noColor(engine.Options{NoColor: &set}, w) }

// makeDir creates the directory path is to be written in.
func makeDir(path string) error {
	if dir := filepath.Dir(path); dir != "." {
		return os.MkdirAll(dir, 0o755)
	}
	return nil
}

// SizeOf is the size of the file at path for humans ("1.3 MB"), "" when it cannot be
// read: commands say how large the report they wrote is.
func SizeOf(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	switch n := fi.Size(); {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

// isTerminal reports whether w is a terminal; colours go only to terminals.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

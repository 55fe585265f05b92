package testrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/omnik-dev/omnik/engine"
	"github.com/omnik-dev/omnik/metrics"
)

// MergeOptions are `omnik merge`'s: the pieces' result files and the summary's options.
type MergeOptions struct {
	// Paths are result files or directories of them (*.ndjson, *.json, *.jsonl, each
	// possibly .gz).
	Paths      []string
	Thresholds []string // judged besides the script's
	// Partial merges pieces that were interrupted or killed (no End line), with a
	// warning each: by default their incomplete segments refuse the merge.
	Partial       bool
	SummaryExport string
	// HTML, when set, is where to write the merged run's HTML report.
	HTML    string
	NoColor bool

	Stdout, Stderr io.Writer
	Log            *slog.Logger
}

// Merge prints one end-to-end summary of the pieces of a distributed run, exactly as if
// one process had made every request: their records and points feed one set of views,
// each piece's timeline moved onto the earliest piece's by the difference of their
// origins (wall clocks), and the thresholds are judged once. Pieces of different scripts
// or runs, segments that overlap or leave a gap, and mixed record schemas are refused
// (exit 104), naming the files.
func Merge(o MergeOptions) (engine.ExitCode, error) {
	files, err := resultFiles(o.Paths)
	if err != nil {
		return 0, engine.Invalid(err)
	}
	pieces := make([]piece, len(files))
	for i, f := range files {
		if pieces[i], err = readPieceHeader(f); err != nil {
			return 0, engine.Invalid(err)
		}
	}
	plan, err := checkPieces(pieces)
	if err != nil {
		return 0, engine.Invalid(err)
	}
	rp := newReporter(ReportOptions{Thresholds: o.Thresholds, SummaryExport: o.SummaryExport, HTML: o.HTML, NoColor: o.NoColor,
		Stdout: o.Stdout, Stderr: o.Stderr, Log: o.Log})
	o.Stdout = rp.opts.Stdout
	if err := rp.html.check(); err != nil {
		return 0, engine.Invalid(err)
	}
	merged := *pieces[0].header
	merged.Origin = plan.origin
	if merged.Piece.RunID == "" {
		rp.opts.Log.Warn("the pieces carry no run id (--run-id): pieces of different runs cannot be told apart")
	}
	for _, p := range pieces {
		if err := rp.read(p.path, &merged, p.header.Origin.Sub(plan.origin)); err != nil {
			return 0, engine.Invalid(err)
		}
	}
	if err := rp.checkComplete(o.Partial); err != nil {
		rp.views.pipeline.Stop()
		return 0, engine.Invalid(err)
	}
	if _, err := fmt.Fprint(o.Stdout, plan.describe(rp.startSkew())); err != nil {
		return 0, err
	}
	return rp.finish()
}

// piece is one result file and its Run header.
type piece struct {
	path     string
	header   *runHeader
	from, to *big.Rat
}

// resultFiles expands directories into their result files, in name order.
func resultFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, e := range entries {
			name := strings.TrimSuffix(e.Name(), ".gz")
			if !e.IsDir() && (strings.HasSuffix(name, ".ndjson") || strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")) {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no result files (*.ndjson, *.json, *.jsonl, or .gz of them)", p)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no result files given")
	}
	return out, nil
}

// errHeaderRead stops reading a file once its Run header is in.
var errHeaderRead = errors.New("header read")

type headerOnly struct{ header *runHeader }

func (h *headerOnly) Samples([]metrics.Sample) {}

func (h *headerOnly) Entry(typ string, data json.RawMessage) error {
	if typ != "Run" {
		return errors.New("its first entry is not a Run header")
	}
	var rh runHeader
	if err := json.Unmarshal(data, &rh); err != nil {
		return fmt.Errorf("its Run header: %w", err)
	}
	if !readableRunSchema(rh.Schema) {
		return fmt.Errorf("its Run header is %q; this omnik reads %s", rh.Schema, runSchema)
	}
	h.header = &rh
	return errHeaderRead
}

// readPieceHeader reads a file's Run header and its piece: the segment it ran, of which
// run and script.
func readPieceHeader(path string) (piece, error) {
	in, closeIn, err := openInput(path)
	if err != nil {
		return piece{}, err
	}
	defer closeIn()
	h := &headerOnly{}
	if _, err := metrics.ReadResults(in, metrics.NewRegistry(), h); !errors.Is(err, errHeaderRead) {
		if err == nil {
			err = errors.New("no Run header")
		}
		return piece{}, fmt.Errorf("%s: %w", path, err)
	}
	if h.header.Piece == nil {
		return piece{}, fmt.Errorf("%s: its Run header has no piece (written by an omnik before merge): it cannot be merged", path)
	}
	seg, err := engine.ParseSegment(h.header.Piece.Segment)
	if err != nil {
		return piece{}, fmt.Errorf("%s: %w", path, err)
	}
	from, to := seg.Bounds()
	return piece{path: path, header: h.header, from: from, to: to}, nil
}

// mergePlan is what the checked pieces make: one run, covering the test once.
type mergePlan struct {
	pieces []piece // by segment
	origin time.Time
}

// checkPieces refuses pieces that cannot make one run: another script, run or record
// schema, slots dealt differently, segments overlapping or leaving a gap.
func checkPieces(pieces []piece) (*mergePlan, error) {
	first := pieces[0]
	fp := first.header.Piece
	for _, p := range pieces[1:] {
		pp := p.header.Piece
		switch {
		case pp.ScriptSHA256 != fp.ScriptSHA256:
			return nil, fmt.Errorf("%s and %s ran different scripts (sha256 %.12s… and %.12s…)", first.path, p.path, fp.ScriptSHA256, pp.ScriptSHA256)
		case pp.RunID != fp.RunID:
			return nil, fmt.Errorf("%s and %s are pieces of different runs (run ids %q and %q)", first.path, p.path, fp.RunID, pp.RunID)
		case pp.RecordSchema != fp.RecordSchema:
			return nil, fmt.Errorf("%s and %s hold records of different schemas (%s and %s): written by different omnik versions", first.path, p.path, fp.RecordSchema, pp.RecordSchema)
		case pp.Slots != fp.Slots:
			return nil, fmt.Errorf("%s and %s split the test differently (%d and %d slots): give every piece the same --execution-segment-sequence", first.path, p.path, fp.Slots, pp.Slots)
		case pp.OptionsSHA256 != fp.OptionsSHA256:
			return nil, fmt.Errorf("%s and %s ran with different options (flags, -e values, thresholds): pieces of one test share them", first.path, p.path)
		case !pp.StartAt.Equal(fp.StartAt):
			return nil, fmt.Errorf("%s and %s waited for different --start-at times (%s and %s)", first.path, p.path, fp.StartAt.Format(time.RFC3339Nano), pp.StartAt.Format(time.RFC3339Nano))
		}
		if d := p.header.Origin.Sub(first.header.Origin).Abs(); d > maxOriginSpread {
			return nil, fmt.Errorf("%s and %s started %s apart: not one run", first.path, p.path, d.Round(time.Second))
		}
	}
	sorted := slices.Clone(pieces)
	slices.SortStableFunc(sorted, func(a, b piece) int { return a.from.Cmp(b.from) })
	var missing []string
	gap := new(big.Rat)
	at := new(big.Rat)
	for i, p := range sorted {
		switch c := p.from.Cmp(at); {
		case c < 0:
			prev := sorted[i-1]
			return nil, fmt.Errorf("%s (%s) and %s (%s) overlap: a request would count twice", prev.path, prev.header.Piece.Segment, p.path, p.header.Piece.Segment)
		case c > 0:
			missing = append(missing, at.RatString()+":"+p.from.RatString())
			gap.Add(gap, new(big.Rat).Sub(p.from, at))
		}
		at = p.to
	}
	if one := big.NewRat(1, 1); at.Cmp(one) < 0 {
		missing = append(missing, at.RatString()+":1")
		gap.Add(gap, new(big.Rat).Sub(one, at))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("segments %s are missing (%s of the test): merge every piece's file", strings.Join(missing, ", "), gap.RatString())
	}
	plan := &mergePlan{pieces: sorted, origin: first.header.Origin}
	for _, p := range pieces {
		if p.header.Origin.Before(plan.origin) {
			plan.origin = p.header.Origin
		}
	}
	return plan, nil
}

// maxOriginSpread bounds how far apart the pieces of one run may have started; beyond it
// (a stale file, a clock gone wrong) the timelines would not line up anyway.
const maxOriginSpread = 24 * time.Hour

// checkComplete refuses pieces that did not run their whole segment: killed (no End
// line) or interrupted. With partial they are merged, each with a warning.
func (rp *reporter) checkComplete(partial bool) error {
	for _, p := range rp.pieces {
		why := ""
		switch {
		case p.end == nil:
			why = "has no End line (the piece was killed)"
		case p.end.Interrupted:
			why = "was interrupted"
			if p.end.StopReason != "" {
				why += " (" + p.end.StopReason + ")"
			}
		default:
			continue
		}
		if !partial {
			return fmt.Errorf("%s %s: its segment is incomplete (--partial merges it anyway)", p.path, why)
		}
		rp.opts.Log.Warn(fmt.Sprintf("%s %s: its segment is incomplete, merged as it is (--partial)", p.path, why))
	}
	return nil
}

// startSkew is the spread of the pieces' real starts (the first scenario's, on the
// merged timeline): how far apart they began, --start-at or not. 0 without End lines.
func (rp *reporter) startSkew() time.Duration {
	runs, _ := rp.pieceRuns()
	var lo, hi time.Duration
	for i, r := range runs {
		if i == 0 || r.start < lo {
			lo = r.start
		}
		hi = max(hi, r.start)
	}
	return hi - lo
}

// describe is the line above the merged summary: what was merged, and the start skew.
func (m *mergePlan) describe(skew time.Duration) string {
	segs := make([]string, len(m.pieces))
	for i, p := range m.pieces {
		segs[i] = p.header.Piece.Segment
	}
	run := ""
	if id := m.pieces[0].header.Piece.RunID; id != "" {
		run = fmt.Sprintf(" of run %q", id)
	}
	return fmt.Sprintf("omnik merge: %d pieces%s (%s), start skew %s\n\n", len(m.pieces), run, strings.Join(segs, ", "), skew)
}

package sweep

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Result is a whole sweep: every step, the answer's bracket and why it stopped.
type Result struct {
	Knob     Knob   `json:"knob"`
	Scenario string `json:"scenario"`
	Spec     Spec   `json:"spec"`
	Steps    []Step `json:"steps"`
	// Pass is the highest load that passed and Fail the lowest that failed; 0 for none.
	Pass float64 `json:"pass"`
	Fail float64 `json:"fail"`
	// Stop says why the sweep ended: ClientLimited when the client was its own limit,
	// Interrupted when a step could not be judged or the sweep was stopped.
	Stop          string        `json:"stop"`
	ClientLimited bool          `json:"client_limited"`
	LimitedAt     float64       `json:"limited_at,omitempty"`
	Interrupted   bool          `json:"interrupted"`
	Elapsed       time.Duration `json:"elapsed_ns"`
	Dir           string        `json:"dir"`
}

// Answer is the sweep's finding in one line.
func (r *Result) Answer() string {
	k := r.Knob
	at := func(v float64) string { return k.Format(v) + " " + k.Unit() }
	var a string
	switch {
	case r.Pass > 0 && r.Fail > 0:
		a = fmt.Sprintf("passes at %s, fails at %s", at(r.Pass), at(r.Fail))
	case r.Pass > 0 && r.ClientLimited:
		a = fmt.Sprintf("passes at %s; at %s the client was its own limit", at(r.Pass), at(r.LimitedAt))
	case r.Pass > 0:
		a = fmt.Sprintf("passes at %s; no load tried failed", at(r.Pass))
	case r.Fail > 0:
		a = fmt.Sprintf("fails at %s, the lowest load tried", at(r.Fail))
	case r.ClientLimited:
		a = fmt.Sprintf("none: at %s, the lowest load, the client was its own limit", at(r.LimitedAt))
	default:
		a = "no step finished"
	}
	if r.Interrupted && len(r.Steps) > 0 {
		a += " (so far: the sweep was stopped)"
	}
	return a
}

// WriteText prints the table, a row per load from the lowest, and the answer.
func (r *Result) WriteText(w io.Writer) error {
	sp := r.Spec
	fmt.Fprintf(w, "\nSweep of %s for scenario %q: %s warm-up + %s measured per step, precision %s\n\n", r.Knob, r.Scenario, sp.Warmup, sp.Duration, percent(sp.Precision))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"step", "load (" + r.Knob.Unit() + ")", "achieved/s", "requests", "failed", "dropped", "client CPU", "CPU wait"}
	if len(r.Steps) > 0 {
		for _, v := range r.Steps[0].Thresholds {
			head = append(head, v.Threshold)
		}
	}
	// The verdict follows the last column unaligned: words read left to right.
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t  verdict")
	rows := slices.Clone(r.Steps)
	slices.SortStableFunc(rows, func(a, b Step) int { return cmp.Compare(a.Load, b.Load) })
	for _, st := range rows {
		cells := []string{strconv.Itoa(st.N), r.Knob.Format(st.Load), strconv.FormatFloat(st.Throughput, 'f', 2, 64),
			strconv.FormatInt(st.Requests, 10), strconv.FormatInt(st.Failed, 10), strconv.FormatInt(st.Dropped, 10), cpuCell(st), waitCell(st)}
		for _, v := range st.Thresholds {
			cells = append(cells, v.cell())
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t  "+st.verdict())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	steps := "steps"
	if len(r.Steps) == 1 {
		steps = "step"
	}
	fmt.Fprintf(w, "\nAnswer: %s (%d %s in %s)\n", r.Answer(), len(r.Steps), steps, r.Elapsed.Round(time.Second))
	fmt.Fprintf(w, "Stopped: %s\n", r.Stop)
	_, err := fmt.Fprintf(w, "Step files: %s (omnik report FILE, omnik compare A B, omnik report --html)\n", r.Dir)
	return err
}

// WriteJSON writes the result as sweep.json holds it.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		*Result
		Answer string `json:"answer"`
		Unit   string `json:"unit"`
	}{r, r.Answer(), r.Knob.Unit()})
}

func cpuCell(st Step) string {
	c := strconv.FormatFloat(100*st.CPU, 'f', 0, 64) + "%"
	if st.Saturated {
		c += " SATURATED"
	}
	return c
}

func waitCell(st Step) string {
	c := strconv.FormatFloat(float64(st.CPUWait)/float64(time.Millisecond), 'f', 2, 64) + "ms"
	if st.Starved {
		c += " STARVED"
	}
	return c
}

func (v Verdict) cell() string {
	mark := " ✓"
	if !v.OK {
		mark = " ✗"
	}
	if v.NoData {
		return "no data" + mark
	}
	return strconv.FormatFloat(v.Observed, 'f', 2, 64) + mark
}

func (st Step) verdict() string {
	switch {
	case st.Passed:
		return "pass"
	case st.NotOffered != "":
		return "FAIL (not offered: " + st.NotOffered + ")"
	case st.Ended != "":
		return "FAIL (" + st.Ended + ")"
	}
	return "FAIL"
}

// summary is the step's line as it ends.
func (st Step) summary(k Knob) string {
	var crossed []string
	for _, v := range st.Thresholds {
		if !v.OK {
			crossed = append(crossed, v.Threshold+" ("+v.cell()+")")
		}
	}
	line := fmt.Sprintf("%s at %s %s, achieved %.2f/s, %d requests (%d failed), client CPU %s, CPU wait %s", st.verdict(), k.Format(st.Load), k.Unit(), st.Throughput, st.Requests, st.Failed, cpuCell(st), waitCell(st))
	if len(crossed) > 0 {
		line += "; crossed: " + strings.Join(crossed, ", ")
	}
	return line
}

package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// figure is one line of the table, a value of every run.
type figure struct {
	what   string
	unit   string
	target float64 // at most; 0: none
	omnik  []float64
	k6     []float64
}

// table keeps the figures in the order rows first add them.
type table struct {
	runs    int
	figures []*figure
}

func (t *table) figure(what, unit string, target float64) *figure {
	for _, f := range t.figures {
		if f.what == what {
			return f
		}
	}
	f := &figure{what: what, unit: unit, target: target}
	t.figures = append(t.figures, f)
	return f
}

func (t *table) add(what, unit string, target, omnik float64) {
	f := t.figure(what, unit, target)
	f.omnik = append(f.omnik, omnik)
}

func (t *table) addK6(what string, k6 float64) {
	for _, f := range t.figures {
		if f.what == what {
			f.k6 = append(f.k6, k6)
		}
	}
}

// row runs once and adds its figures.
type row func(h *harness, t *table) error

var rowNames = []string{"request", "chunk", "delay100", "delay500", "rss", "start"}

var rowsByName = map[string]row{
	"request": func(h *harness, t *table) error {
		const what = "CPU per non-streaming chat request, 50 VUs closed loop (all in)"
		omnik, k6, err := h.cpuPerRequest()
		t.add(what, "µs", 60, omnik)
		if h.k6 != "" {
			t.addK6(what, k6)
		}
		return err
	},
	"chunk": func(h *harness, t *table) error {
		v, err := h.cpuPerChunk()
		t.add("CPU per streamed chunk, omnik bench 1000 × 50 chunks, 100 in flight (all in)", "µs", 20, v)
		return err
	},
	"delay100": func(h *harness, t *table) error { return delayRow(h, t, 100, 1) },
	"delay500": func(h *harness, t *table) error { return delayRow(h, t, 500, 5) },
	"rss": func(h *harness, t *table) error {
		run := func(script string) func(int) []string {
			return func(vus int) []string {
				return []string{"run", "--quiet", "--base-url", h.base, "-e", "VUS=" + strconv.Itoa(vus), h.script(script)}
			}
		}
		stream, err := h.rssPerVU(h.omnik, "hold.js", nil, run("hold.js"))
		if err != nil {
			return err
		}
		t.add("RSS per VU holding an open stream (slope 200 → 1000 VUs)", "KB", 64, stream/1024)
		idle, err := h.rssPerVU(h.omnik, "idle.js", nil, run("idle.js"))
		if err != nil {
			return err
		}
		const idleWhat = "RSS per idle VU with its connection (slope 200 → 1000 VUs)"
		t.add(idleWhat, "KB", 64, idle/1024)
		if h.k6 != "" {
			k6, err := h.rssPerVU(h.k6, "idle.js", []string{"BASE_URL=" + h.base}, func(int) []string {
				return []string{"run", "--quiet", "--no-summary", h.script("k6-idle.js")}
			})
			if err != nil {
				return err
			}
			t.addK6(idleWhat, k6/1024)
		}
		return nil
	},
	"start": func(h *harness, t *table) error {
		first, later, err := h.vuStart()
		if err != nil {
			return err
		}
		what := "first requests of 100 VUs at once: "
		t.add(what+"client → server p50", "ms", 0, ms(quantile(first.total, 0.5)))
		t.add(what+"client → server max", "ms", 0, ms(quantile(first.total, 1)))
		t.add(what+"of which set-up before the write (sent_ms) p50", "ms", 0, ms(quantile(first.setUp, 0.5)))
		t.add(what+"of which set-up before the write (sent_ms) max", "ms", 0, ms(quantile(first.setUp, 1)))
		t.add("later requests: client → server p50", "ms", 0, ms(quantile(later.total, 0.5)))
		t.add("later requests: set-up before the write (sent_ms) p50", "ms", 0, ms(quantile(later.setUp, 0.5)))
		return nil
	},
}

func delayRow(h *harness, t *table, streams int, p99 float64) error {
	ds, cpu, err := h.delays(streams)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("added delay per chunk, %d streams × 50 chunks/s", streams)
	t.add(what+": p50", "ms", 0, ms(quantile(ds, 0.5)))
	t.add(what+": p90", "ms", 0, ms(quantile(ds, 0.9)))
	t.add(what+": p99", "ms", p99, ms(quantile(ds, 0.99)))
	t.add(what+": p99.9", "ms", 0, ms(quantile(ds, 0.999)))
	t.add(fmt.Sprintf("CPU per streamed chunk, JS scenario, %d streams (all in)", streams), "µs", 20, cpu)
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// print writes the table: medians, every run's value, k6's and the target.
func (t *table) print(w io.Writer, k6 bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "what\tomnik (median of %d)\truns\tk6\ttarget\t\n", t.runs)
	for _, f := range t.figures {
		m := median(f.omnik)
		runs := make([]string, len(f.omnik))
		for i, v := range f.omnik {
			runs[i] = num(v)
		}
		peer := "—"
		if len(f.k6) > 0 {
			k := median(f.k6)
			peer = fmt.Sprintf("%s %s (omnik %.2f×)", num(k), f.unit, m/k)
		}
		target, mark := "—", ""
		if f.target > 0 {
			target = "≤ " + num(f.target) + " " + f.unit
			mark = "✓"
			if m > f.target {
				mark = "✗"
			}
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%s\t%s\t%s\n", f.what, num(m), f.unit, strings.Join(runs, " "), peer, target, mark)
	}
	tw.Flush()
	if !k6 {
		fmt.Fprintln(w, "k6: not on PATH, so its rows were not run (put a k6 binary on PATH to compare)")
	}
}

// num prints 3 significant digits.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

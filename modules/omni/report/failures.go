package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Bounds of the breakdowns: a record file's kinds and statuses are not this package's,
// and a printed message is a hint, not a log.
const (
	maxBreakdownGroups = 32
	maxSampleMessage   = 120
)

// breakdown counts requests by group with the first message of each: failures by kind
// and HTTP status (a 429 storm and a 500 storm must not look alike), or anomalies by kind.
type breakdown struct {
	groups map[group]*tally
	// others counts the requests of groups beyond maxBreakdownGroups.
	others int
	// kinds counts by kind alone, all of them: a kind's groups past the bound count too.
	kinds map[string]int
}

type group struct {
	kind   string
	status int // 0 where it does not tell groups apart
}

type tally struct {
	count   int
	message string
}

func (b *breakdown) add(g group, n int, message string) {
	if b.groups == nil {
		b.groups, b.kinds = map[group]*tally{}, map[string]int{}
	}
	if _, ok := b.kinds[g.kind]; ok || len(b.kinds) < maxBreakdownGroups {
		b.kinds[g.kind] += n
	}
	t := b.groups[g]
	if t == nil {
		if len(b.groups) >= maxBreakdownGroups {
			b.others += n
			return
		}
		// Redacted again: a file written before omnik redacted messages may hold a URL's
		// credentials.
		t = &tally{message: printable(urlErrorPrefix.ReplaceAllString(httpdebug.RedactText(message), ""), maxSampleMessage)}
		b.groups[g] = t
	}
	t.count += n
}

// addRecord counts r's failure and anomalies.
func addRecord(failures, anomalies *breakdown, r *record.Record) {
	if r.Interrupted() {
		return
	}
	if r.Failed() {
		failures.add(group{r.Err.Kind, r.FailureStatus()}, 1, r.Err.Message)
	}
	for _, a := range r.Anomalies {
		anomalies.add(group{kind: a.Kind}, 1, a.Message)
	}
}

// sorted is the groups, most requests first.
func (b *breakdown) sorted() []group {
	gs := slices.Collect(maps.Keys(b.groups))
	slices.SortFunc(gs, func(x, y group) int {
		return cmp.Or(-cmp.Compare(b.groups[x].count, b.groups[y].count), cmp.Compare(x.kind, y.kind), cmp.Compare(x.status, y.status))
	})
	return gs
}

func (g group) String() string { return record.FailureGroup(g.kind, g.status) }

// write prints the breakdown under title, one group a line: name, count, first message.
func (b *breakdown) write(w io.Writer, title string) error {
	if len(b.groups) == 0 {
		return nil
	}
	var s strings.Builder
	fmt.Fprintf(&s, "  %s\n\n", title)
	for _, g := range b.sorted() {
		fmt.Fprintf(&s, "    %-24s %6d  %s\n", g, b.groups[g].count, b.groups[g].message)
	}
	if b.others > 0 {
		fmt.Fprintf(&s, "    %-24s %6d\n", "(other kinds)", b.others)
	}
	s.WriteString("\n")
	_, err := io.WriteString(w, s.String())
	return err
}

// byKind is the counts by kind alone (failures_by_error, which omnik compare reads).
func (b *breakdown) byKind() map[string]int { return maps.Clone(b.kinds) }

// list is the JSON view: one object per group, most requests first.
func (b *breakdown) list() []map[string]any {
	out := make([]map[string]any, 0, len(b.groups))
	for _, g := range b.sorted() {
		e := map[string]any{"kind": g.kind, "count": b.groups[g].count, "message": b.groups[g].message}
		if g.status != 0 {
			e["status"] = g.status
		}
		out = append(out, e)
	}
	return out
}

// urlErrorPrefix is how Go's HTTP errors begin (`Post "http://…/v1/chat/completions": `):
// the same for every failure of a call, and it would take most of the line.
var urlErrorPrefix = regexp.MustCompile(`^[A-Z][a-zA-Z]* "[^"]*": `)

// printable is s on one line, at most n bytes (cut at a rune), without control
// characters: a server's text must not move the terminal's cursor or colour the summary.
func printable(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len()+len(string(r)) > n {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			r = ' '
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

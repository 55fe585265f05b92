package htmlreport

import (
	"regexp"
	"strings"
)

// Row is one line of the Serving/Stage blocks as the terminal prints them, so the
// report's tables hold exactly the printed numbers.
type Row struct {
	Kind  string `json:"kind"` // title (a block), section (=== within one), heading (---), row, note
	Label string `json:"label"`
	Value string `json:"value,omitempty"`
}

var (
	titleLine   = regexp.MustCompile(`^=+ (.+?) =+$`)
	headingLine = regexp.MustCompile(`^-+(.+?)-+$`)
	ruleLine    = regexp.MustCompile(`^=+$`)
	valueLine   = regexp.MustCompile(`^(\S.*?):\s+(\S.*?)\s*$`)
)

// parseBlocks reads the blocks' text. A title after a blank line starts a block; one
// after rows is a section of it. Indented lines (the failures list, which the report
// shows on its own) are left out.
func parseBlocks(text string) []Row {
	var rows []Row
	fresh := true
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " ")
		switch {
		case line == "":
			fresh = true
			continue
		case strings.HasPrefix(line, " "), ruleLine.MatchString(line):
		case titleLine.MatchString(line):
			kind := "section"
			if fresh {
				kind = "title"
			}
			rows = append(rows, Row{Kind: kind, Label: titleLine.FindStringSubmatch(line)[1]})
		case headingLine.MatchString(line):
			rows = append(rows, Row{Kind: "heading", Label: headingLine.FindStringSubmatch(line)[1]})
		case strings.HasPrefix(line, "("): // a note on the block above
			rows = append(rows, Row{Kind: "note", Label: line})
		case valueLine.MatchString(line):
			m := valueLine.FindStringSubmatch(line)
			rows = append(rows, Row{Kind: "row", Label: m[1], Value: m[2]})
		default:
			rows = append(rows, Row{Kind: "note", Label: line})
		}
		fresh = false
	}
	return rows
}

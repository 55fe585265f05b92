package htmlreport

import (
	_ "embed"
	"encoding/json"
	"html"
	"io"
	"regexp"
	"strings"
)

// The page's assets. ECharts is Apache ECharts 6.1.0's dist/echarts.min.js as published,
// with its LICENSE and NOTICE, which the page carries too.
var (
	//go:embed assets/echarts.min.js
	echartsJS string
	//go:embed assets/LICENSE-echarts
	echartsLicense string
	//go:embed assets/NOTICE-echarts
	echartsNotice string
	//go:embed assets/common.js
	commonJS string
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/server.js
	serverJS string
	//go:embed assets/compare.js
	compareJS string
	//go:embed assets/report.css
	reportCSS string
)

const echartsVersion = "6.1.0"

// WriteHTML writes the report page: the data and every script inline, so the file opens
// from disk with no network.
func (d *Data) WriteHTML(w io.Writer) error {
	payload, err := json.Marshal(d)
	if err != nil {
		return err
	}
	nav := [][2]string{{"overview", "Overview"}, {"thresholds", "Thresholds"}, {"failures", "Failures"}, {"time", "Over time"}}
	if d.Server != nil {
		nav = append(nav, [2]string{"server", "Server metrics"})
	}
	nav = append(nav, [][2]string{{"distributions", "Distributions"}, {"stages", "Stages"}, {"waterfalls", "Waterfalls"},
		{"blocks", "Serving/Stage blocks"}, {"metrics", "Metrics"}, {"run", "Run"}}...)
	return writePage(w, page{title: "omnik report: " + d.Title, payload: payload, script: serverJS + reportJS, nav: nav})
}

// dataSection finds a page's data section; DataSection reads it back.
var dataSection = regexp.MustCompile(`(?s)<script type="application/json" id="omnik-data">(.*?)</script>`)

// DataSection is the JSON data section of a page WriteHTML wrote (the report's Data or a
// Comparison), for whatever reads a report back: its tests, a script, another tool.
func DataSection(page []byte) ([]byte, bool) {
	m := dataSection.FindSubmatch(page)
	if m == nil {
		return nil, false
	}
	return m[1], true
}

// page is what differs between the report and the comparison page.
type page struct {
	title   string
	payload []byte // the data section's JSON: json.Marshal escapes <, > and &, so no "</script>" ends it early
	script  string // draws the page from the data section
	nav     [][2]string
}

func writePage(w io.Writer, p page) error {
	var b strings.Builder
	b.Grow(len(echartsJS) + len(p.payload) + 64<<10)
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(p.title) + `</title>
<style>` + reportCSS + `</style>
</head><body>
<header><h1 id="title"></h1><div class="meta" id="meta"></div></header>
<nav>`)
	for _, l := range p.nav {
		b.WriteString(`<a href="#` + l[0] + `">` + html.EscapeString(l[1]) + `</a>`)
	}
	b.WriteString(`</nav>
<main id="app"></main>
<footer>Made by omnik. Charts drawn by Apache ECharts ` + echartsVersion + `, embedded under the Apache License 2.0:
<details><summary>ECharts license and notice</summary><pre>` + html.EscapeString(echartsNotice+"\n"+echartsLicense) + `</pre></details></footer>
<script type="application/json" id="omnik-data">`)
	b.Write(p.payload)
	b.WriteString("</script>\n<script>")
	b.WriteString(echartsJS)
	b.WriteString("</script>\n<script>")
	b.WriteString(commonJS)
	b.WriteString(p.script)
	b.WriteString("</script>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

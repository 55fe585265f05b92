package htmlreport

import (
	_ "embed"
	"encoding/json"
	"html"
	"io"
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
	//go:embed assets/report.js
	reportJS string
	//go:embed assets/report.css
	reportCSS string
)

const echartsVersion = "6.1.0"

// WriteHTML writes the report page: the data and every script inline, so the file opens
// from disk with no network.
func (d *Data) WriteHTML(w io.Writer) error {
	payload, err := json.Marshal(d) // escapes <, > and &: no "</script>" can end the data early
	if err != nil {
		return err
	}
	var b strings.Builder
	b.Grow(len(echartsJS) + len(payload) + 64<<10)
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>omnik report: ` + html.EscapeString(d.Title) + `</title>
<style>` + reportCSS + `</style>
</head><body>
<header><h1 id="title"></h1><div class="meta" id="meta"></div></header>
<nav><a href="#overview">Overview</a><a href="#thresholds">Thresholds</a><a href="#failures">Failures</a><a href="#time">Over time</a><a href="#distributions">Distributions</a><a href="#stages">Stages</a><a href="#waterfalls">Waterfalls</a><a href="#blocks">Serving/Stage blocks</a><a href="#metrics">Metrics</a><a href="#run">Run</a></nav>
<main id="app"></main>
<footer>Made by omnik. Charts drawn by Apache ECharts ` + echartsVersion + `, embedded under the Apache License 2.0:
<details><summary>ECharts license and notice</summary><pre>` + html.EscapeString(echartsNotice+"\n"+echartsLicense) + `</pre></details></footer>
<script type="application/json" id="omnik-data">`)
	b.Write(payload)
	b.WriteString("</script>\n<script>")
	b.WriteString(echartsJS)
	b.WriteString("</script>\n<script>")
	b.WriteString(reportJS)
	b.WriteString("</script>\n</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

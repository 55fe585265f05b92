package htmlreport_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omnik-dev/omnik/htmlreport"
	"github.com/omnik-dev/omnik/testrun"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the generated report")

// fixture is a 3-second run of examples/scripts/mixed-workload.js against the simulator
// (chat with text, audio and three stages; images; speech), recorded once.
const fixture = "testdata/mixed.ndjson.gz"

// reportOf writes the HTML report of a result file through omnik report's path.
func reportOf(t *testing.T, results string) (page []byte, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "report.html")
	code, err := testrun.Report(testrun.ReportOptions{Path: results, HTML: path})
	if err != nil || code != 0 {
		t.Fatalf("report: exit %d, %v", code, err)
	}
	page, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return page, path
}

// dataOf is the page's data section.
func dataOf(t *testing.T, page []byte) []byte {
	t.Helper()
	d, ok := htmlreport.DataSection(page)
	if !ok {
		t.Fatal("the page has no data section")
	}
	return d
}

func TestReportDataSectionMatchesGolden(t *testing.T) {
	t.Parallel()
	page, _ := reportOf(t, fixture)
	var got bytes.Buffer
	if err := json.Indent(&got, dataOf(t, page), "", " "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	checkGolden(t, "testdata/mixed.data.golden.json", got.Bytes())
}

// knownURL are the URLs ECharts names without loading them: XML namespaces and licenses.
var knownURL = regexp.MustCompile(`^https?://(www\.w3\.org/|www\.apache\.org/licenses/|github\.com/ecomfe/zrender/blob/master/LICENSE)`)

// The page opens from disk with no network: nothing it loads or links to is remote.
func TestReportIsSelfContained(t *testing.T) {
	t.Parallel()
	page, _ := reportOf(t, fixture)
	checkSelfContained(t, page)
}

// checkSelfContained fails when a page's scripts name a URL that is not a namespace or a
// license, or its markup loads anything.
func checkSelfContained(t *testing.T, page []byte) {
	t.Helper()
	scripts := regexp.MustCompile(`(?s)(<script[^>]*>)(.*?)</script>`)
	for _, m := range scripts.FindAllSubmatch(page, -1) {
		if bytes.Contains(m[1], []byte("application/json")) {
			continue // data, not code: it names the target
		}
		for _, u := range regexp.MustCompile(`https?://[^\s"'<>)]+`).FindAll(m[2], -1) {
			if !knownURL.Match(u) {
				t.Errorf("a script names a URL that is not a namespace or a license: %s", u)
			}
		}
	}
	markup := scripts.ReplaceAll(page, []byte("$1</script>"))
	for _, remote := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<(script|img|link|iframe)[^>]+(src|href)=`),
		regexp.MustCompile(`(?i)url\(\s*['"]?(https?:)?//`),
		regexp.MustCompile(`(?i)@import`),
	} {
		if loc := remote.FindIndex(markup); loc != nil {
			t.Errorf("the page loads something (%s): %q", remote, markup[loc[0]:min(loc[1]+60, len(markup))])
		}
	}
	for _, want := range []string{"Apache License", "echarts", `id="omnik-data"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// The data section is the report's whole input, decodable as JSON with the sections a
// reader expects, whatever the run.
func TestReportDataHasEverySection(t *testing.T) {
	t.Parallel()
	page, _ := reportOf(t, fixture)
	var d map[string]json.RawMessage
	if err := json.Unmarshal(dataOf(t, page), &d); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "run", "thresholds", "checks", "metrics", "blocks", "failures", "timeline", "distributions", "stages", "waterfalls"} {
		if len(d[k]) == 0 || string(d[k]) == "null" {
			t.Errorf("data section %q is missing or null", k)
		}
	}
	if !strings.Contains(string(d["schema"]), "omnik.report/v1") {
		t.Errorf("schema %s", d["schema"])
	}
}

// checkGolden compares got with the golden file, which -update rewrites.
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./htmlreport -update rewrites it); got:\n%.3000s", golden, got)
	}
}

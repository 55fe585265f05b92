// Command report measures the HTML report end to end: it builds result files of N
// requests from a recorded run (its records repeated back to back, so a file of 200k
// requests is a run of hours), runs the omnik binary's `omnik report --html` on each,
// and prints the generation's wall time, CPU, peak RSS and the page's size; with
// -browser it also opens each page in headless Chromium and times it until every chart
// is drawn.
//
//	go build -o /tmp/omnik ./cmd/omnik && go run ./bench/report -omnik /tmp/omnik -records 10000,200000 -browser
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	omnik := flag.String("omnik", "omnik", "the omnik binary to measure")
	seed := flag.String("seed", "htmlreport/testdata/mixed.ndjson.gz", "a result file whose records are repeated")
	counts := flag.String("records", "10000,200000", "comma-separated request counts")
	browser := flag.Bool("browser", false, "also time each page in headless Chromium until its charts are drawn")
	dir := flag.String("dir", "", "where to write the files (default: a temporary directory, removed)")
	flag.Parse()
	work := *dir
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "omnik-report-bench"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(work)
	}
	s, err := readSeed(*seed)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("| requests | run length | result file | generation wall | CPU | peak RSS | report size | browser: charts drawn |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range strings.Split(*counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n <= 0 {
			log.Fatalf("-records: %q is not a count", c)
		}
		results := filepath.Join(work, fmt.Sprintf("run-%d.ndjson.gz", n))
		span, err := s.write(results, n)
		if err != nil {
			log.Fatal(err)
		}
		page := filepath.Join(work, fmt.Sprintf("report-%d.html", n))
		m, err := generate(*omnik, results, page)
		if err != nil {
			log.Fatal(err)
		}
		drawn := "—"
		if *browser {
			d, err := timeInBrowser(page)
			if err != nil {
				log.Fatal(err)
			}
			drawn = fmt.Sprintf("%.2f s", d.Seconds())
		}
		fmt.Printf("| %d | %s | %s | %.2f s | %.2f s | %d MB | %s | %s |\n", n, span.Round(time.Second), size(results), m.wall.Seconds(),
			m.cpu.Seconds(), m.rssKB/1024, size(page), drawn)
	}
}

// seed is a recorded run: its header, its records and its End line.
type seed struct {
	header, end []byte
	records     [][]byte
	duration    time.Duration
}

func readSeed(path string) (*seed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if in, err = gzip.NewReader(f); err != nil {
			return nil, err
		}
	}
	s := &seed{}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var entry struct {
			Type string `json:"type"`
			Data struct {
				Duration int64 `json:"duration_ns"`
			} `json:"data"`
		}
		if err := json.Unmarshal(line, &entry); err != nil {
			return nil, err
		}
		switch entry.Type {
		case "Run":
			s.header = line
		case "Record":
			s.records = append(s.records, line)
		case "End":
			s.end, s.duration = line, time.Duration(entry.Data.Duration)
		}
	}
	if s.header == nil || s.end == nil || len(s.records) == 0 || s.duration <= 0 {
		return nil, fmt.Errorf("%s: not a complete result file with records", path)
	}
	return s, sc.Err()
}

// write writes n records: the seed's, again and again, each round shifted by the seed's
// duration; the End line says the run lasted that many rounds.
func (s *seed) write(path string, n int) (time.Duration, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	w := bufio.NewWriter(gz)
	w.Write(s.header)
	w.WriteByte('\n')
	rounds := (n + len(s.records) - 1) / len(s.records)
	for i := range n {
		round, rec := i/len(s.records), s.records[i%len(s.records)]
		var r map[string]any
		if err := json.Unmarshal(rec, &r); err != nil {
			return 0, err
		}
		data := r["data"].(map[string]any)
		data["offset_ms"] = data["offset_ms"].(float64) + float64(round)*float64(s.duration)/1e6
		line, _ := json.Marshal(r)
		w.Write(line)
		w.WriteByte('\n')
	}
	var end map[string]any
	json.Unmarshal(s.end, &end)
	span := time.Duration(rounds) * s.duration
	end["data"].(map[string]any)["duration_ns"] = int64(span)
	line, _ := json.Marshal(end)
	w.Write(line)
	w.WriteByte('\n')
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return span, gz.Close()
}

type measure struct {
	wall, cpu time.Duration
	rssKB     int64
}

// generate runs omnik report --html and measures the process.
func generate(omnik, results, page string) (measure, error) {
	cmd := exec.Command(omnik, "report", "--html", page, results)
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return measure{}, fmt.Errorf("omnik report: %w", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return measure{wall: time.Since(start), cpu: cpu, rssKB: ru.Maxrss}, nil
}

func size(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%.1f MB", float64(fi.Size())/(1<<20))
}

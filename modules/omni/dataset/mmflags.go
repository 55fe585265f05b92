package dataset

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// bucketEntry is one `(H, W, T): p` of a bucket config; the key may be quoted, as in JSON.
var bucketEntry = regexp.MustCompile(`["']?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)["']?\s*:\s*([0-9.eE+-]+)`)

// ParseBuckets parses `--random-mm-bucket-config`, the Python dict literal vLLM takes:
// "{(256, 256, 1): 0.5, (720, 1280, 1): 0.4, (0, 5, 1): 0.1}" (height, width, frames;
// height 0 is audio of width seconds and frames channels).
func ParseBuckets(s string) ([]Bucket, error) {
	body := strings.TrimSpace(s)
	if !strings.HasPrefix(body, "{") || !strings.HasSuffix(body, "}") {
		return nil, fmt.Errorf("--random-mm-bucket-config %q: want {(H, W, T): probability, …}", s)
	}
	var out []Bucket
	for _, m := range bucketEntry.FindAllStringSubmatch(body, -1) {
		var n [3]int
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+1]) // the pattern admits only digits
		}
		p, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return nil, fmt.Errorf("--random-mm-bucket-config: probability %q: %w", m[4], err)
		}
		out = append(out, Bucket{Height: n[0], Width: n[1], Frames: n[2], Prob: p})
	}
	// What the entries leave must be braces, commas and spaces only.
	if rest := strings.Trim(bucketEntry.ReplaceAllString(body, ""), "{}, \t\n"); rest != "" || len(out) == 0 {
		return nil, fmt.Errorf("--random-mm-bucket-config %q: want {(H, W, T): probability, …}", s)
	}
	return out, nil
}

// ParseLimits parses `--random-mm-limit-mm-per-prompt`, a JSON object of per-modality
// caps: {"image": 3, "audio": 1}.
func ParseLimits(s string) (map[string]int, error) {
	var m map[string]int
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, fmt.Errorf("--random-mm-limit-mm-per-prompt %q: want a JSON object of counts, like {\"image\": 3}", s)
	}
	for k, v := range m {
		if v < 0 {
			return nil, fmt.Errorf("--random-mm-limit-mm-per-prompt: %s %d: want at least 0", k, v)
		}
	}
	return m, nil
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"time"
)

// record is what the harness reads of an omnik result-file Record line.
type record struct {
	RequestID  string            `json:"request_id"`
	Start      time.Time         `json:"start"`
	Metadata   map[string]string `json:"metadata"`
	SentMS     float64           `json:"sent_ms"`
	TextChunks []struct {
		AtMS float64 `json:"at_ms"`
	} `json:"text_chunks"`
}

// readRecords reads the Record lines of an `--out json` file.
func readRecords(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if line.Type != "Record" {
			continue
		}
		var r record
		if err := json.Unmarshal(line.Data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// fetchStamps takes the server's stamps of every request since the last call.
func fetchStamps(base string) (map[string]stamps, error) {
	resp, err := http.Get(base + "/bench/stamps")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return decodeStamps(resp.Body)
}

func decodeStamps(r io.Reader) (map[string]stamps, error) {
	out := map[string]stamps{}
	dec := json.NewDecoder(r)
	for {
		var st stamps
		if err := dec.Decode(&st); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out[st.ID] = st
	}
}

// chunkDelays joins each record's text chunks to the server's send stamps, in order:
// client arrival (record start + at_ms) − send stamp.
func chunkDelays(records []record, byID map[string]stamps) ([]time.Duration, error) {
	var out []time.Duration
	for _, r := range records {
		st, ok := byID[r.RequestID]
		if !ok {
			return nil, fmt.Errorf("record %q: the server has no such request", r.RequestID)
		}
		if len(st.Chunks) != len(r.TextChunks) {
			return nil, fmt.Errorf("record %q: %d text chunks, the server sent %d", r.RequestID, len(r.TextChunks), len(st.Chunks))
		}
		start := r.Start.UnixNano()
		for i, c := range r.TextChunks {
			out = append(out, time.Duration(start+int64(c.AtMS*1e6)-st.Chunks[i]))
		}
	}
	return out, nil
}

// transit is how a request reached the server: client record start → server receive,
// and the part of it before the request was written in full (the client's own set-up:
// waiting for a core, dialing, writing; the record's sent_ms).
type transit struct{ total, setUp []time.Duration }

// transits splits the requests into the VUs' first ones and the later ones.
func transits(records []record, byID map[string]stamps) (first, later transit, err error) {
	for _, r := range records {
		st, ok := byID[r.RequestID]
		if !ok {
			return first, later, fmt.Errorf("record %q: the server has no such request", r.RequestID)
		}
		t := &later
		if r.Metadata["iter"] == "0" {
			t = &first
		}
		t.total = append(t.total, time.Duration(st.Recv-r.Start.UnixNano()))
		t.setUp = append(t.setUp, time.Duration(r.SentMS*1e6))
	}
	return first, later, nil
}

// quantile is the q-quantile (0–1) of ds by the nearest rank, the ⌈q·n⌉-th smallest;
// ds is sorted in place.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

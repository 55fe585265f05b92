package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"time"
	_ "unsafe" // for go:linkname
)

// nanotime is CLOCK_MONOTONIC, the same clock in every process of the machine, so the
// server's send stamps and the client's arrival times can be subtracted.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// serverEnv, when set, makes the process the streaming server (the child).
const serverEnv = "OMNIK_STREAMING_BENCH_SERVER"

// serve is the child process: it prints its address, serves streams until its stdin
// closes (the parent ended) and exits.
func serve(procs int) error {
	runtime.GOMAXPROCS(procs)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	return http.Serve(ln, http.HandlerFunc(stream))
}

// stream sends ?n= chunks at ?rate= per second, the first after ?phase= ns, each a
// vLLM-Omni text chunk whose content is its send stamp, then [DONE].
func stream(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	q := r.URL.Query()
	n, _ := strconv.Atoi(q.Get("n"))
	rate, _ := strconv.ParseFloat(q.Get("rate"), 64)
	phase, _ := strconv.ParseInt(q.Get("phase"), 10, 64)
	if n <= 0 || rate <= 0 {
		http.Error(w, "want ?n=chunks&rate=per-second", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	interval := time.Duration(float64(time.Second) / rate)
	// Absolute deadlines: a late chunk does not push the later ones back.
	start := time.Now().Add(time.Duration(phase))
	buf := make([]byte, 0, 512)
	for k := 1; k <= n; k++ {
		time.Sleep(time.Until(start.Add(time.Duration(k-1) * interval)))
		buf = appendChunk(buf[:0], k, nanotime())
		if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
			return
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

// appendChunk is a ~300-byte text chunk with running usage, its content the stamp.
func appendChunk(b []byte, k int, stamp int64) []byte {
	b = append(b, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1760000000,"model":"bench","choices":[{"index":0,"delta":{"content":"`...)
	b = strconv.AppendInt(b, stamp, 10)
	b = append(b, ` "},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":812,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(812+k), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	return append(b, `},"modality":"text","metrics":null}`+"\n\n"...)
}

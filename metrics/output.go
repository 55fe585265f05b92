package metrics

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Output receives every sample batch and every entry of the run (request records from
// modules, the run's header and end) and writes them somewhere. AddSamples and AddEntry
// never block: an output that cannot keep up drops and counts what it could not take,
// and Stop reports the loss.
type Output interface {
	// Description names the output as the user wrote it: "json=results.ndjson".
	Description() string
	Start() error
	// AddSamples takes ownership of the slice: callers must not change it afterwards.
	// derived marks samples computed from records the output also receives as entries:
	// an output that writes the records skips them, since a reader derives them again.
	AddSamples(samples []Sample, derived bool)
	// AddEntry writes one entry; its data must be JSON-serialisable.
	AddEntry(e Entry)
	// Stop flushes and closes. Its error names the output and the points it lost.
	Stop() error
	// Lost is the number of points and entries dropped or not written so far.
	Lost() int64
}

// Entry is one line of a result file other than a metric point: a request record
// ("Record"), the run's header ("Run") or its end ("End").
type Entry struct {
	Type string
	Data any
}

// OutputOption configures an output.
type OutputOption func(*asyncOutput)

// OutputBuffer sets how many batches or records may wait for the writer (default 4096).
func OutputBuffer(n int) OutputOption { return func(o *asyncOutput) { o.ch = make(chan item, n) } }

// NewOutput builds an output from a --out spec: "json=FILE" (NDJSON) or "csv=FILE".
// FILE "-" is stdout; a FILE ending in ".gz" is gzip-compressed. The file is created by
// Start.
func NewOutput(spec string, opts ...OutputOption) (Output, error) {
	name, path, _ := strings.Cut(spec, "=")
	var enc encoder
	switch name {
	case "json":
		enc = &jsonEncoder{}
	case "csv":
		enc = &csvEncoder{}
	default:
		return nil, fmt.Errorf("--out %q: unknown output %q (want json=FILE, csv=FILE, html=FILE or prometheus=URL)", spec, name)
	}
	if path == "" {
		return nil, fmt.Errorf("--out %q: missing file name (%s=FILE)", spec, name)
	}
	open := func() (io.WriteCloser, error) { return createFile(path) }
	switch {
	case path == "-":
		open = func() (io.WriteCloser, error) { return nopCloser{os.Stdout}, nil }
	case strings.HasSuffix(path, ".gz"):
		open = func() (io.WriteCloser, error) {
			f, err := createFile(path)
			if err != nil {
				return nil, err
			}
			return &gzipFile{gzip.NewWriter(f), f}, nil
		}
	}
	return newAsyncOutput(spec, enc, open, opts), nil
}

// createFile creates path and the directories it needs (pieces/p0.ndjson.gz).
func createFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.Create(path)
}

// gzipFile closes the gzip stream, then the file under it.
type gzipFile struct {
	*gzip.Writer
	f *os.File
}

func (g *gzipFile) Close() error { return errors.Join(g.Writer.Close(), g.f.Close()) }

// NewJSONOutput writes NDJSON to w (which it does not close); desc names it in reports.
func NewJSONOutput(w io.Writer, desc string, opts ...OutputOption) Output {
	return newAsyncOutput(desc, &jsonEncoder{}, writerOpener(w), opts)
}

// NewCSVOutput writes CSV to w (which it does not close); desc names it in reports.
func NewCSVOutput(w io.Writer, desc string, opts ...OutputOption) Output {
	return newAsyncOutput(desc, &csvEncoder{}, writerOpener(w), opts)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func writerOpener(w io.Writer) func() (io.WriteCloser, error) {
	return func() (io.WriteCloser, error) { return nopCloser{w}, nil }
}

// encoder appends one output format to a buffer; it runs on the output's goroutine.
type encoder interface {
	header(buf *bytes.Buffer)
	samples(buf *bytes.Buffer, s []Sample)
	entry(buf *bytes.Buffer, e Entry) error
	// writes says which items the format writes; the others are left out, not lost.
	writes(k itemKind) bool
}

// itemKind sorts what an output is given: points the run measured, points derived from
// records, and entries.
type itemKind int

const (
	pointItems itemKind = iota
	derivedItems
	entryItems
)

type item struct {
	samples []Sample
	entry   Entry
	isEntry bool
}

func (it item) points() int64 {
	if it.isEntry {
		return 1
	}
	return int64(len(it.samples))
}

// flushAt is the buffered size that triggers a write; an idle channel also flushes.
const flushAt = 64 << 10

// asyncOutput is the buffered, non-blocking writer shared by every file output.
type asyncOutput struct {
	desc string
	enc  encoder
	open func() (io.WriteCloser, error)
	ch   chan item
	done chan struct{}

	mu      sync.RWMutex // orders Add* against Stop's close(ch)
	stopped bool

	lost     atomic.Int64
	overflow atomic.Bool // lost points to a full buffer
	werr     error       // first write error: nothing is written after it
	encErr   error       // first record that could not be encoded
	w        io.WriteCloser
	buf      bytes.Buffer
	pending  int64 // points in buf
}

func newAsyncOutput(desc string, enc encoder, open func() (io.WriteCloser, error), opts []OutputOption) *asyncOutput {
	o := &asyncOutput{desc: desc, enc: enc, open: open, ch: make(chan item, 4096), done: make(chan struct{})}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

func (o *asyncOutput) Description() string { return o.desc }

func (o *asyncOutput) Lost() int64 { return o.lost.Load() }

func (o *asyncOutput) Start() error {
	w, err := o.open()
	if err != nil {
		return fmt.Errorf("output %s: %w", o.desc, err)
	}
	o.w = w
	o.enc.header(&o.buf)
	go o.run()
	return nil
}

func (o *asyncOutput) AddSamples(s []Sample, derived bool) {
	kind := pointItems
	if derived {
		kind = derivedItems
	}
	if len(s) > 0 && o.enc.writes(kind) {
		o.enqueue(item{samples: s})
	}
}

func (o *asyncOutput) AddEntry(e Entry) {
	if o.enc.writes(entryItems) {
		o.enqueue(item{entry: e, isEntry: true})
	}
}

func (o *asyncOutput) enqueue(it item) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.stopped {
		o.lost.Add(it.points())
		return
	}
	select {
	case o.ch <- it:
	default:
		o.overflow.Store(true)
		o.lost.Add(it.points())
	}
}

func (o *asyncOutput) run() {
	defer close(o.done)
	for it := range o.ch {
		o.write(it)
		if len(o.ch) == 0 || o.buf.Len() >= flushAt {
			o.flush()
		}
	}
	o.flush()
}

func (o *asyncOutput) write(it item) {
	if o.werr != nil {
		o.lost.Add(it.points())
		return
	}
	if !it.isEntry {
		o.enc.samples(&o.buf, it.samples)
	} else if err := o.enc.entry(&o.buf, it.entry); err != nil {
		if o.encErr == nil {
			o.encErr = err
		}
		o.lost.Add(1)
		return
	}
	o.pending += it.points()
}

// flush writes the buffer; on failure everything in it counts as lost.
func (o *asyncOutput) flush() {
	if o.buf.Len() == 0 {
		return
	}
	if _, err := o.w.Write(o.buf.Bytes()); err != nil {
		o.werr = err
		o.lost.Add(o.pending)
	}
	o.buf.Reset()
	o.pending = 0
}

// Stop implements Output.
func (o *asyncOutput) Stop() error {
	o.mu.Lock()
	if o.stopped {
		o.mu.Unlock()
		return nil
	}
	o.stopped = true
	close(o.ch)
	o.mu.Unlock()
	if o.w == nil { // never started
		return nil
	}
	<-o.done
	cerr := o.w.Close()
	var cause error
	switch {
	case o.werr != nil:
		cause = o.werr
	case o.encErr != nil:
		cause = o.encErr
	case o.overflow.Load():
		cause = errors.New("it could not keep up and its buffer was full")
	}
	if n := o.lost.Load(); n > 0 {
		return fmt.Errorf("output %s lost %d points: %w", o.desc, n, cause)
	}
	if cause == nil {
		cause = cerr
	}
	if cause != nil {
		return fmt.Errorf("output %s: %w", o.desc, cause)
	}
	return nil
}

// Outputs fans out to several outputs (--out may be repeated).
type Outputs []Output

// Description implements Output.
func (outs Outputs) Description() string {
	ds := make([]string, len(outs))
	for i, o := range outs {
		ds[i] = o.Description()
	}
	return strings.Join(ds, ", ")
}

// Start starts every output; on failure it stops those already started.
func (outs Outputs) Start() error {
	for i, o := range outs {
		if err := o.Start(); err != nil {
			for _, started := range outs[:i] {
				_ = started.Stop()
			}
			return err
		}
	}
	return nil
}

// AddSamples implements Output.
func (outs Outputs) AddSamples(s []Sample, derived bool) {
	for _, o := range outs {
		o.AddSamples(s, derived)
	}
}

// AddEntry implements Output.
func (outs Outputs) AddEntry(e Entry) {
	for _, o := range outs {
		o.AddEntry(e)
	}
}

// Stop stops every output and joins their reports.
func (outs Outputs) Stop() error {
	var errs []error
	for _, o := range outs {
		errs = append(errs, o.Stop())
	}
	return errors.Join(errs...)
}

// Lost implements Output.
func (outs Outputs) Lost() int64 {
	var n int64
	for _, o := range outs {
		n += o.Lost()
	}
	return n
}

package engine

import (
	"time"

	"github.com/omnik-dev/omnik/internal/cputime"
	"github.com/omnik-dev/omnik/metrics"
)

// ClientLoad is the client's own load over one monitor tick: what tells a slow server
// from a client that could not keep up.
type ClientLoad struct {
	// CPU is the share (0–1) of its usable cores (cputime.Cores) the process kept busy;
	// CPUOK is false where the platform has no process clock.
	CPU   float64
	CPUOK bool
	// Wait is its threads' mean wait for a CPU each time they had work; WaitOK is false
	// where the platform does not say.
	Wait   time.Duration
	WaitOK bool
	// Lag is the lag probe's worst lateness (cputime.LagProbe).
	Lag time.Duration
}

// ClientSampler reads the client's load since its previous call.
type ClientSampler func() ClientLoad

// WithClientSampler replaces how the client's own load is read each tick: tests give
// set values; by default the process's clocks are read and a lag probe runs.
func WithClientSampler(s ClientSampler) Option { return func(r *Run) { r.clientSampler = s } }

// processSampler reads the process's CPU time, its threads' waits and a lag probe, and
// returns each tick's difference.
type processSampler struct {
	cores   int
	probe   *cputime.LagProbe
	at      time.Time
	cpu     time.Duration
	cpuOK   bool
	waits   cputime.Waits
	waitsOK bool
}

func newProcessSampler(probe *cputime.LagProbe) *processSampler {
	s := &processSampler{cores: cputime.Cores(), probe: probe}
	s.read()
	return s
}

func (s *processSampler) read() ClientLoad {
	now := time.Now()
	cpu, cpuOK := cputime.Process()
	waits, waitsOK := cputime.ReadWaits()
	l := ClientLoad{Lag: s.probe.TakeWorst(), CPUOK: cpuOK && s.cpuOK, WaitOK: waitsOK && s.waitsOK}
	if l.CPUOK {
		l.CPU = cputime.Share(cpu-s.cpu, now.Sub(s.at), s.cores)
	}
	if l.WaitOK {
		l.Wait = waits.MeanSince(s.waits)
	}
	s.at, s.cpu, s.cpuOK, s.waits, s.waitsOK = now, cpu, cpuOK, waits, waitsOK
	return l
}

// emitClient sends one tick's client_cpu, client_cpu_wait and client_lag.
func (r *Run) emitClient(now time.Time, l ClientLoad) {
	b := r.builtin
	tags := metrics.NewTagSet(r.opts.Tags)
	batch := make([]metrics.Sample, 0, 3)
	add := func(m *metrics.Metric, v float64) {
		if m != nil {
			batch = append(batch, metrics.Sample{Metric: m, Tags: tags, Time: now, Value: v})
		}
	}
	if l.CPUOK {
		add(b.ClientCPU, l.CPU)
	}
	if l.WaitOK {
		add(b.ClientCPUWait, float64(l.Wait)/float64(time.Millisecond))
	}
	add(b.ClientLag, float64(l.Lag)/float64(time.Millisecond))
	if len(batch) > 0 {
		r.collector.Collect(batch)
	}
}

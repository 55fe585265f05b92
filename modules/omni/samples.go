package omni

import (
	"strconv"

	"github.com/omnik-dev/omnik/metrics"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Metrics are the metrics the omni module's records become (docs/metrics.md): a Trend
// per record.Measure and per record.StageMeasure, and the counters.
type Metrics struct {
	Requests, RequestsFailed                       *metrics.Metric
	Interrupted                                    *metrics.Metric // requests_interrupted: cut off by the run
	Anomalies                                      *metrics.Metric // request_anomalies: one per request and anomaly kind
	InputTokens, OutputTokens, Images, ImagePixels *metrics.Metric
	DataSent, DataReceived                         *metrics.Metric // the built-in data_sent and data_received
	// The server's profile of a request and its stream-edge first events (server.go).
	StageDuration, PeakMemory, EdgeEvent, EdgeHandoff *metrics.Metric
	measures                                          []measured
	stages                                            []measuredStage
	realtime                                          realtimeMetrics
	serverTags                                        serverTags
}

// measured is a record.Measure with its Trend.
type measured struct {
	record.Measure
	metric *metrics.Metric
}

// measuredStage is a record.StageMeasure with its Trend.
type measuredStage struct {
	record.StageMeasure
	metric *metrics.Metric
}

// RegisterMetrics registers the omni metrics, so thresholds on them parse even before
// the first request.
func RegisterMetrics(r *metrics.Registry) *Metrics {
	trend := func(n string, time bool) *metrics.Metric {
		if time {
			return r.MustNew(n, metrics.Trend, metrics.Time)
		}
		return r.MustNew(n, metrics.Trend, metrics.Default)
	}
	counter := func(n string) *metrics.Metric { return r.MustNew(n, metrics.Counter, metrics.Default) }
	m := &Metrics{
		Requests:       counter("requests"),
		RequestsFailed: r.MustNew("requests_failed", metrics.Rate, metrics.Default),
		Interrupted:    counter("requests_interrupted"),
		Anomalies:      counter("request_anomalies"),
		InputTokens:    counter("input_tokens"),
		OutputTokens:   counter("output_tokens"),
		Images:         counter("images"),
		ImagePixels:    counter("image_pixels"),
		// The built-ins, as metrics.RegisterBuiltins defines them (New returns the same metric).
		DataSent:      r.MustNew("data_sent", metrics.Counter, metrics.Data),
		DataReceived:  r.MustNew("data_received", metrics.Counter, metrics.Data),
		StageDuration: trend("stage_duration", true),
		PeakMemory:    trend("peak_memory_mb", false),
		EdgeEvent:     trend("stream_edge_event", true),
		EdgeHandoff:   trend("stream_edge_handoff", true),
	}
	m.realtime = registerRealtime(counter, r.MustNew("realtime_sessions_failed", metrics.Rate, metrics.Default), trend("realtime_turns", false))
	for _, ms := range record.Measures {
		m.measures = append(m.measures, measured{ms, trend(ms.Name, ms.Time)})
	}
	for _, ms := range record.StageMeasures {
		m.stages = append(m.stages, measuredStage{ms, trend(ms.Name, ms.Time)})
	}
	return m
}

// View is the subscriber of the record stream that the metrics read: it turns each
// record into samples tagged with the record's tags plus endpoint, status and, per
// sample, modality, error or stage, and hands them to out.
func (m *Metrics) View(out metrics.Collector) record.Subscriber {
	return record.SubscriberFunc(func(r *record.Record) { out.Collect(m.samples(r)) })
}

func (m *Metrics) samples(r *record.Record) []metrics.Sample {
	now := r.Start.Add(r.End)
	tags := metrics.NewTagSet(r.Tags).With("endpoint", r.Endpoint).With("status", strconv.Itoa(r.Status))
	out := make([]metrics.Sample, 0, sampleCount(r))
	add := func(m *metrics.Metric, t *metrics.TagSet, v float64) {
		out = append(out, metrics.Sample{Metric: m, Tags: t, Time: now, Value: v, Metadata: r.Metadata})
	}
	// A failed or interrupted request's bytes were still on the wire.
	add(m.DataSent, tags, float64(r.BytesSent))
	add(m.DataReceived, tags, float64(r.BytesReceived))
	if r.Interrupted() {
		// The run cut it off: not a request the server answered or failed.
		add(m.Interrupted, tags, 1)
		return out
	}
	add(m.Requests, tags, 1)
	for _, a := range r.Anomalies {
		add(m.Anomalies, tags.With("anomaly", a.Kind), 1)
	}
	if r.Realtime != nil {
		m.realtime.samples(r, tags, add)
	}
	if !r.OK() {
		add(m.RequestsFailed, tags.With("error", r.Err.Kind), 1)
		return out
	}
	add(m.RequestsFailed, tags, 0)
	byModality := map[string]*metrics.TagSet{"": tags}
	for _, ms := range m.measures {
		t := tagged(byModality, tags, ms.Modality)
		ms.Each(r, func(v float64) { add(ms.metric, t, v) })
	}
	add(m.InputTokens, tags, float64(r.Usage.Prompt))
	add(m.OutputTokens, tagged(byModality, tags, record.ModalityText), float64(r.Usage.Completion))
	if n := record.ImageCount(r); n > 0 {
		image := tagged(byModality, tags, record.ModalityImage)
		add(m.Images, image, float64(n))
		add(m.ImagePixels, image, float64(r.Images.Pixels))
	}
	for _, id := range r.StageIDs() {
		st := r.Stages[id]
		stags := tags.With("stage", st.DisplayName()).With("stage_id", id)
		for _, ms := range m.stages {
			ms.Each(st, func(v float64) { add(ms.metric, stags, v) })
		}
	}
	m.serverSamples(r, tags, add)
	return out
}

// sampleCount is about how many samples a record becomes: the counters and one per
// measure, ITL entry (one per text chunk but for a chunk of several tokens), utterance,
// stage list entry, realtime counter (up to 4) and edge event (each edge's events and
// its hand-off), so their slice is allocated once.
func sampleCount(r *record.Record) int {
	n := 9 + len(r.Anomalies) + len(record.Measures) + len(r.TextChunks) + 2*len(r.Utterances) +
		len(r.Images.StageDurations)
	if r.Realtime != nil {
		n += 4
	}
	for _, e := range r.Edges {
		n += len(e.Values) + 1
	}
	for _, st := range r.Stages {
		n += len(record.StageMeasures)
		for _, l := range st.Lists {
			n += len(l)
		}
	}
	return n
}

// tagged is the tags with the modality ("" for none), made once per record.
func tagged(byModality map[string]*metrics.TagSet, tags *metrics.TagSet, modality string) *metrics.TagSet {
	t := byModality[modality]
	if t == nil {
		t = tags.With("modality", modality)
		byModality[modality] = t
	}
	return t
}

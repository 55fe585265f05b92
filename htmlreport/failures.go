package htmlreport

import (
	"cmp"
	"maps"
	"slices"

	"github.com/omnik-dev/omnik/modules/httpdebug"
	"github.com/omnik-dev/omnik/modules/omni/record"
)

// Bounds on what the failures keep, whatever a hostile server sends: distinct messages
// per kind, and the length of each.
const (
	maxKinds         = 32 // past it, kinds a file made up count under otherKind
	maxMessages      = 20
	maxMessageLength = 300
)

const otherKind = "other kinds"

// Failure is one error kind (with its HTTP status, "http_status 429"): how many, when, and what the messages said.
type Failure struct {
	Kind    string    `json:"kind"`
	Count   int64     `json:"count"`
	FirstS  Float     `json:"first_s"` // on the run's timeline, when the first ended
	LastS   Float     `json:"last_s"`
	Samples []Message `json:"samples"` // the most frequent messages
	// Other counts the failures whose message was not among the distinct ones kept.
	Other int64 `json:"other,omitempty"`
}

// Message is a failure message and how often it came.
type Message struct {
	Text  string `json:"message"`
	Count int64  `json:"count"`
}

type failures map[string]*failure

type failure struct {
	Failure
	messages map[string]int64
}

// add counts r's failure in f and its anomalies in anomalies.
func (f failures) add(anomalies failures, r *record.Record) {
	if r.Interrupted() {
		return
	}
	at := Float((r.Offset + r.End).Seconds())
	if r.Failed() {
		f.count(record.FailureGroup(r.Err.Kind, r.FailureStatus()), r.Err.Message, at) // a 429 storm and a 500 storm are two reasons
	}
	for _, a := range r.Anomalies {
		anomalies.count(a.Kind, a.Message, at)
	}
}

// count adds one request of kind, ended at at, with its message.
func (f failures) count(kind, message string, at Float) {
	if f[kind] == nil && len(f) >= maxKinds {
		kind = otherKind
	}
	k := f[kind]
	if k == nil {
		k = &failure{Failure: Failure{Kind: kind, FirstS: at, LastS: at}, messages: map[string]int64{}}
		f[kind] = k
	}
	k.Count++
	k.FirstS, k.LastS = min(k.FirstS, at), max(k.LastS, at)
	// Redacted again: a file written before omnik redacted errors may hold a credential.
	msg := record.Cut(httpdebug.RedactText(message), maxMessageLength)
	if _, ok := k.messages[msg]; ok || len(k.messages) < maxMessages {
		k.messages[msg]++
	} else {
		k.Other++
	}
}

// list is every kind, the most frequent first.
func (f failures) list() []Failure {
	out := []Failure{}
	for _, name := range slices.Sorted(maps.Keys(f)) {
		k := f[name]
		fl := k.Failure
		for msg, n := range k.messages {
			fl.Samples = append(fl.Samples, Message{msg, n})
		}
		slices.SortFunc(fl.Samples, func(a, b Message) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Text, b.Text)) })
		out = append(out, fl)
	}
	slices.SortStableFunc(out, func(a, b Failure) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

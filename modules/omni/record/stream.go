package record

import "sync"

// Subscriber is a view of the result stream: every number omnik prints, gates on or
// writes comes from a subscriber that saw each finished request once.
type Subscriber interface {
	Add(r *Record)
}

// SubscriberFunc lets a function be a Subscriber.
type SubscriberFunc func(r *Record)

// Add implements Subscriber.
func (f SubscriberFunc) Add(r *Record) { f(r) }

// Stream hands every finished request to its subscribers, one record at a time and in
// one order for all of them, so the views it feeds agree to the last sample: a live run
// publishes from its readers' goroutines, a record file from its decoder. Subscribers
// must not keep the caller waiting; records are immutable once published.
type Stream struct {
	mu     sync.Mutex
	subs   []Subscriber
	closed bool
	late   int64
}

// NewStream returns a stream that feeds subs in the order given.
func NewStream(subs ...Subscriber) *Stream { return &Stream{subs: subs} }

// Subscribe adds subscribers after those already there. A run wires its views once its
// options are known, before its first request.
func (s *Stream) Subscribe(subs ...Subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, subs...)
}

// Publish hands r to every subscriber. After Close it only counts r (Late).
func (s *Stream) Publish(r *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.late++
		return
	}
	for _, sub := range s.subs {
		sub.Add(r)
	}
}

// Close ends the stream: the run's views are about to be read.
func (s *Stream) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// Late is the number of records published after Close, which no view saw.
func (s *Stream) Late() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.late
}

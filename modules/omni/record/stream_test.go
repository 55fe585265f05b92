package record

import (
	"sync"
	"testing"
	"time"
)

// Every subscriber sees every record once, in one order for all; after Close records
// are only counted.
func TestStreamFeedsSubscribersInOneOrder(t *testing.T) {
	t.Parallel()
	var a, b []*Record
	s := NewStream(SubscriberFunc(func(r *Record) { a = append(a, r) }))
	s.Subscribe(SubscriberFunc(func(r *Record) { b = append(b, r) }))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { s.Publish(&Record{End: time.Duration(i)}) })
	}
	wg.Wait()
	if len(a) != 50 || len(b) != 50 {
		t.Fatalf("subscribers saw %d and %d records, want 50 each", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("record %d differs between subscribers: the order is not shared", i)
		}
	}
	s.Close()
	s.Publish(&Record{})
	if len(a) != 50 || s.Late() != 1 {
		t.Errorf("after Close: %d delivered, %d late; want 50 and 1", len(a), s.Late())
	}
}

func TestMeasuresAreUniqueAndNamed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, m := range Measures {
		if seen[m.Name] || m.Each == nil {
			t.Errorf("measure %q repeated or without values", m.Name)
		}
		seen[m.Name] = true
		if MeasureNamed(m.Name).Name != m.Name {
			t.Errorf("MeasureNamed(%q)", m.Name)
		}
	}
}

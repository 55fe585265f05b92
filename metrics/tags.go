package metrics

import (
	"slices"
	"strings"
)

// Tag is one indexed key/value pair.
type Tag struct{ Key, Value string }

// TagSet is an immutable, sorted set of tags. Its Key identifies a series. A nil *TagSet
// is the empty set.
type TagSet struct {
	tags []Tag
	key  string
}

// NewTagSet builds a set from a map.
func NewTagSet(m map[string]string) *TagSet {
	if len(m) == 0 {
		return nil
	}
	tags := make([]Tag, 0, len(m))
	for k, v := range m {
		tags = append(tags, Tag{k, v})
	}
	return fromTags(tags)
}

func fromTags(tags []Tag) *TagSet {
	slices.SortFunc(tags, func(a, b Tag) int { return strings.Compare(a.Key, b.Key) })
	return sorted(tags)
}

// sorted is the set of tags already sorted by key; it builds the key in one allocation.
func sorted(tags []Tag) *TagSet {
	n := len(tags)
	for _, t := range tags {
		n += len(t.Key) + len(t.Value)
	}
	var b strings.Builder
	b.Grow(n)
	for i, t := range tags {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.Key)
		b.WriteByte('=')
		b.WriteString(t.Value)
	}
	return &TagSet{tags: tags, key: b.String()}
}

// With returns a set with key set to value (replacing any earlier value).
func (s *TagSet) With(key, value string) *TagSet {
	// Every sample of a request goes through here: insert in order rather than sort.
	old := s.List()
	i, found := slices.BinarySearchFunc(old, key, func(t Tag, k string) int { return strings.Compare(t.Key, k) })
	tags := make([]Tag, 0, len(old)+1)
	tags = append(append(tags, old[:i]...), Tag{key, value})
	if found {
		i++
	}
	return sorted(append(tags, old[i:]...))
}

// Merge returns s with every tag of o added (o wins on conflicts).
func (s *TagSet) Merge(o *TagSet) *TagSet {
	if o.Len() == 0 {
		return s
	}
	if s.Len() == 0 {
		return o
	}
	m := s.Map()
	for _, t := range o.tags {
		m[t.Key] = t.Value
	}
	return NewTagSet(m)
}

// Get returns the value of key.
func (s *TagSet) Get(key string) (string, bool) {
	for _, t := range s.List() {
		if t.Key == key {
			return t.Value, true
		}
	}
	return "", false
}

// Contains reports whether every tag of sel is in s with the same value.
func (s *TagSet) Contains(sel *TagSet) bool {
	for _, t := range sel.List() {
		if v, ok := s.Get(t.Key); !ok || v != t.Value {
			return false
		}
	}
	return true
}

// Len is the number of tags.
func (s *TagSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.tags)
}

// List returns the tags sorted by key; callers must not modify it.
func (s *TagSet) List() []Tag {
	if s == nil {
		return nil
	}
	return s.tags
}

// Key is the canonical "k=v,k2=v2" identity of the set.
func (s *TagSet) Key() string {
	if s == nil {
		return ""
	}
	return s.key
}

// Map returns a fresh copy as a map.
func (s *TagSet) Map() map[string]string {
	m := make(map[string]string, s.Len())
	for _, t := range s.List() {
		m[t.Key] = t.Value
	}
	return m
}

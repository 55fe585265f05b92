package metrics

import "testing"

func TestTagSetWith(t *testing.T) {
	base := NewTagSet(map[string]string{"b": "2", "d": "4"})
	for _, tc := range []struct {
		set        *TagSet
		key, value string
		want       string
	}{
		{nil, "a", "1", "a=1"},
		{base, "a", "1", "a=1,b=2,d=4"}, // first
		{base, "c", "3", "b=2,c=3,d=4"}, // between
		{base, "e", "5", "b=2,d=4,e=5"}, // last
		{base, "b", "9", "b=9,d=4"},     // replaces
		{base, "d", "", "b=2,d="},       // replaces the last
		{base.With("c", "3"), "c", "7", "b=2,c=7,d=4"},
	} {
		got := tc.set.With(tc.key, tc.value)
		if got.Key() != tc.want {
			t.Errorf("%q.With(%q, %q) = %q, want %q", tc.set.Key(), tc.key, tc.value, got.Key(), tc.want)
		}
		if want := NewTagSet(got.Map()); want.Key() != got.Key() {
			t.Errorf("%q.With(%q, %q) is not sorted: %q", tc.set.Key(), tc.key, tc.value, got.Key())
		}
	}
	if base.Key() != "b=2,d=4" {
		t.Errorf("With changed its receiver: %q", base.Key())
	}
}

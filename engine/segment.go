package engine

import (
	"fmt"
	"math/big"
	"strings"
)

// Segment is the slice [From, To) of the whole test that this instance runs, as in k6's
// --execution-segment. Executors derive their VUs and iterations from it, so several
// instances with adjacent segments together reproduce the single-instance run exactly.
// The zero value is the whole test, 0:1.
//
// The whole test's indices (iterations, arrivals, VUs) are dealt round-robin over the
// slots 0…D−1, D the common denominator of the pieces' bounds; the segment owns the slots
// [from·D, to·D). Ownership is a partition, so every index has exactly one owner, and a
// share is the count of owned indices, so it never shrinks as n grows.
type Segment struct {
	fromN, fromD, toN, toD int64 // toD == 0 marks the zero value, 0:1
	slots                  int64 // D: a multiple of fromD and toD; 0 for the zero value
}

// FullSegment is the whole test, 0:1.
func FullSegment() Segment { return Segment{} }

// ParseSegment parses "a:b" where a and b are fractions ("1/4") or decimals ("0.25")
// with 0 <= a < b <= 1. A single value "b" means "0:b".
func ParseSegment(s string) (Segment, error) {
	from, to, ok := strings.Cut(s, ":")
	if !ok {
		from, to = "0", s
	}
	f, err := parseFrac(from)
	if err != nil {
		return Segment{}, fmt.Errorf("execution segment %q: %w", s, err)
	}
	t, err := parseFrac(to)
	if err != nil {
		return Segment{}, fmt.Errorf("execution segment %q: %w", s, err)
	}
	if f.Sign() < 0 || t.Cmp(big.NewRat(1, 1)) > 0 || f.Cmp(t) >= 0 {
		return Segment{}, fmt.Errorf("execution segment %q: need 0 <= start < end <= 1", s)
	}
	return newSegment(f, t, 0)
}

// newSegment is from:to over slots D, the lcm of their denominators unless the sequence
// it belongs to sets a larger one.
func newSegment(from, to *big.Rat, slots int64) (Segment, error) {
	d := lcm(from.Denom().Int64(), to.Denom().Int64())
	if slots == 0 {
		slots = d
	}
	if slots%d != 0 || slots > maxSlots {
		return Segment{}, fmt.Errorf("segment %s:%s over %d slots: need a multiple of %d, at most %d", from.RatString(), to.RatString(), slots, d, maxSlots)
	}
	return Segment{from.Num().Int64(), from.Denom().Int64(), to.Num().Int64(), to.Denom().Int64(), slots}, nil
}

// maxSlots bounds D, so counts times slots stay far inside int64.
const maxSlots = 1_000_000

func lcm(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

func parseFrac(s string) (*big.Rat, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return nil, fmt.Errorf("%q is not a fraction or decimal", s)
	}
	// Scale multiplies counts by the numerator; bounding the denominator keeps that in int64.
	if !r.Num().IsInt64() || !r.Denom().IsInt64() || r.Denom().Int64() > 1_000_000 {
		return nil, fmt.Errorf("%q: denominator too large (at most 1000000)", s)
	}
	return r, nil
}

func (s Segment) bounds() (fn, fd, tn, td int64) {
	if s.toD == 0 {
		return 0, 1, 1, 1
	}
	return s.fromN, s.fromD, s.toN, s.toD
}

// IsFull reports whether s is the whole test.
func (s Segment) IsFull() bool {
	fn, _, tn, td := s.bounds()
	return fn == 0 && tn == td
}

// Scale returns this segment's share of n things: how many of the indices 0…n−1 it owns.
// Shares of the pieces of a sequence sum to n.
func (s Segment) Scale(n int64) int64 {
	if s.IsFull() || n <= 0 {
		return max(n, 0)
	}
	lo, hi := s.slotRange()
	return n/s.slots*(hi-lo) + min(max(n%s.slots-lo, 0), hi-lo)
}

// Owns reports whether the i-th (0-based) thing of the whole test belongs to this
// segment: exactly one of the pieces of a sequence owns each index, so an arrival
// schedule split this way is the single-process schedule, each arrival run once.
func (s Segment) Owns(i int64) bool {
	if s.IsFull() {
		return true
	}
	lo, hi := s.slotRange()
	slot := i % s.slots
	return slot >= lo && slot < hi
}

// Nth is the n-th (from 0) index of the whole test this segment owns: a piece numbers
// its iterations and VUs with it, so numbers are unique across the pieces.
func (s Segment) Nth(n int64) int64 {
	if s.IsFull() {
		return n
	}
	lo, hi := s.slotRange()
	return n/(hi-lo)*s.slots + lo + n%(hi-lo)
}

// slotRange is [from·D, to·D), integers because D is a multiple of both denominators.
func (s Segment) slotRange() (lo, hi int64) {
	return s.fromN * (s.slots / s.fromD), s.toN * (s.slots / s.toD)
}

// Slots is D, the number of slots the test's indices are dealt over; pieces dealt over
// different D do not partition the test (omnik merge refuses them).
func (s Segment) Slots() int64 { return max(s.slots, 1) }

// String formats as "from:to" with fractions.
func (s Segment) String() string {
	fn, fd, tn, td := s.bounds()
	return big.NewRat(fn, fd).RatString() + ":" + big.NewRat(tn, td).RatString()
}

// MarshalJSON writes the "from:to" form.
func (s Segment) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// Bounds returns the segment's start and end as fractions of the whole test.
func (s Segment) Bounds() (from, to *big.Rat) {
	fn, fd, tn, td := s.bounds()
	return big.NewRat(fn, fd), big.NewRat(tn, td)
}

// IndexedSegment is piece index of count equal pieces, index/count:(index+1)/count: what
// pod JOB_COMPLETION_INDEX of a Kubernetes Indexed Job with count completions runs.
func IndexedSegment(index, count int64) (Segment, error) {
	if count < 1 || count > 1_000_000 || index < 0 || index >= count {
		return Segment{}, fmt.Errorf("piece %d of %d: need 0 <= index < count <= 1000000", index, count)
	}
	return newSegment(big.NewRat(index, count), big.NewRat(index+1, count), count)
}

// ParseSegmentSequence parses seg as one piece of sequence, k6's
// --execution-segment-sequence "0,1/3,1/2,1": boundaries from 0 to 1, seg two adjacent
// ones. Every piece deals indices over the same slots, so pieces of unequal size still
// partition the test.
func ParseSegmentSequence(seg, sequence string) (Segment, error) {
	s, err := ParseSegment(seg)
	if err != nil || sequence == "" {
		return s, err
	}
	var bounds []*big.Rat
	slots := int64(1)
	for _, b := range strings.Split(sequence, ",") {
		r, err := parseFrac(b)
		if err != nil {
			return Segment{}, fmt.Errorf("execution segment sequence %q: %w", sequence, err)
		}
		if n := len(bounds); n > 0 && r.Cmp(bounds[n-1]) <= 0 {
			return Segment{}, fmt.Errorf("execution segment sequence %q: boundaries must increase", sequence)
		}
		bounds = append(bounds, r)
		if slots = lcm(slots, r.Denom().Int64()); slots > maxSlots {
			return Segment{}, fmt.Errorf("execution segment sequence %q: common denominator above %d", sequence, maxSlots)
		}
	}
	if len(bounds) < 2 || bounds[0].Sign() != 0 || bounds[len(bounds)-1].Cmp(big.NewRat(1, 1)) != 0 {
		return Segment{}, fmt.Errorf("execution segment sequence %q: want boundaries from 0 to 1", sequence)
	}
	from, to := s.Bounds()
	for i := 1; i < len(bounds); i++ {
		if bounds[i-1].Cmp(from) == 0 && bounds[i].Cmp(to) == 0 {
			return newSegment(from, to, slots)
		}
	}
	return Segment{}, fmt.Errorf("execution segment %s is not two adjacent boundaries of the sequence %q", s, sequence)
}

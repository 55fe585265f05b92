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
type Segment struct {
	fromN, fromD, toN, toD int64 // toD == 0 marks the zero value, 0:1
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
	return Segment{f.Num().Int64(), f.Denom().Int64(), t.Num().Int64(), t.Denom().Int64()}, nil
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

// Scale returns this segment's share of n things: floor(n·To) − floor(n·From). Shares of
// adjacent segments sum to n, and a share never shrinks as n grows.
func (s Segment) Scale(n int64) int64 {
	if s.IsFull() {
		return n
	}
	fn, fd, tn, td := s.bounds()
	return n*tn/td - n*fn/fd
}

// Owns reports whether the i-th (0-based) thing of the whole test belongs to this
// segment: exactly one of a set of adjacent segments owns each index, interleaved, so an
// arrival schedule split this way keeps its shape on every instance.
func (s Segment) Owns(i int64) bool {
	return s.IsFull() || s.Scale(i+1) > s.Scale(i)
}

// String formats as "from:to" with fractions.
func (s Segment) String() string {
	fn, fd, tn, td := s.bounds()
	return big.NewRat(fn, fd).RatString() + ":" + big.NewRat(tn, td).RatString()
}

// MarshalJSON writes the "from:to" form.
func (s Segment) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

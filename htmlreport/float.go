package htmlreport

import (
	"math"
	"strconv"
)

// Float is a number as the report's data holds it: 6 significant digits, which is more
// than a plot resolves and keeps the file small and its golden stable.
type Float float64

// MarshalJSON implements json.Marshaler. NaN, which stands for "no value" (a bucket
// without requests), and infinities, which JSON cannot hold, are null: a gap in a plot.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', 6, 64), nil
}

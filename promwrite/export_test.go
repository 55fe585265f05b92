package promwrite

import "math"

// nativeUpper is the upper bound of native bucket i: 2^(i/2^schema).
func nativeUpper(i int32) float64 { return math.Exp2(float64(i) / float64(len(nativeBounds))) }

// NativeUpper is nativeUpper for the tests of package promwrite_test.
var NativeUpper = nativeUpper

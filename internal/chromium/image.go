package chromium

import "image"

// NotBlank measures how much is drawn in img: the number of distinct colours,
// and the fraction of pixels that differ from the most common colour (the
// background). A blank page gives 1 and 0. A test asserts its own minimums,
// for example at least 10 colours and 1% of the pixels.
func NotBlank(img image.Image) (distinctColors int, nonBackground float64) {
	b := img.Bounds()
	if b.Empty() {
		return 0, 0
	}
	counts := map[[4]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r, g, bl, a}]++
		}
	}
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	total := b.Dx() * b.Dy()
	return len(counts), float64(total-most) / float64(total)
}

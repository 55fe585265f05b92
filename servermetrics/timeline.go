package servermetrics

import "time"

// timelinePoints bounds a gauge's timeline: past it, neighbouring points merge and each
// point then covers twice as many pages, so an hour-long soak costs what a minute does.
const timelinePoints = 512

// TimePoint is a gauge over a stretch of the run: the mean and max of its pages there.
type TimePoint struct {
	At   float64 `json:"t"` // seconds on the run's timeline, of the stretch's first page
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
	n    int
}

type timeline struct {
	points []TimePoint
	width  int // pages per point
}

func (t *timeline) add(at time.Duration, v float64) {
	if t.width == 0 {
		t.width = 1
	}
	if n := len(t.points); n > 0 && t.points[n-1].n < t.width {
		p := &t.points[n-1]
		p.Mean += (v - p.Mean) / float64(p.n+1)
		p.Max = max(p.Max, v)
		p.n++
		return
	}
	if len(t.points) == timelinePoints {
		t.halve()
	}
	t.points = append(t.points, TimePoint{At: at.Seconds(), Mean: v, Max: v, n: 1})
}

// halve merges each pair of points.
func (t *timeline) halve() {
	out := t.points[:0]
	for i := 0; i < len(t.points); i += 2 {
		p := t.points[i]
		if i+1 < len(t.points) {
			q := t.points[i+1]
			p.Mean = (p.Mean*float64(p.n) + q.Mean*float64(q.n)) / float64(p.n+q.n)
			p.Max = max(p.Max, q.Max)
			p.n += q.n
		}
		out = append(out, p)
	}
	t.points = out
	t.width *= 2
}

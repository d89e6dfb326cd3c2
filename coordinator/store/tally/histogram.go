package tally

import "time"

// maxBins bounds a Histogram: a night of any length keeps at most this many
// counts, its bins widening as the night goes on.
const maxBins = 512

// Histogram counts times in equal bins of Width seconds from Start (Unix
// seconds), at most maxBins of them: a timeline whose size does not grow
// with the number of times counted. The zero value is empty.
type Histogram struct {
	Start  int64 `json:"start,omitempty"`
	Width  int64 `json:"width,omitempty"`
	Counts []int `json:"counts,omitempty"`
}

// Count is a number of times at one time.
type Count struct {
	Time time.Time
	N    int
}

// Add counts one time.
func (h *Histogram) Add(t time.Time) {
	sec := t.Unix()
	if len(h.Counts) == 0 {
		h.Start, h.Width, h.Counts = sec, 1, []int{0}
	}
	if sec < h.Start { // earlier than every time so far: bins in front
		for (h.Start-sec)/h.Width > maxBins {
			h.coarsen()
		}
		n := (h.Start - sec + h.Width - 1) / h.Width
		h.Counts = append(make([]int, n, n+int64(len(h.Counts))), h.Counts...)
		h.Start -= n * h.Width
	}
	i := (sec - h.Start) / h.Width
	for i >= int64(len(h.Counts)) && i >= maxBins || len(h.Counts) > maxBins {
		h.coarsen()
		i = (sec - h.Start) / h.Width
	}
	for i >= int64(len(h.Counts)) {
		h.Counts = append(h.Counts, 0)
	}
	h.Counts[i]++
}

// coarsen doubles the bins' width, halving their number.
func (h *Histogram) coarsen() {
	out := make([]int, (len(h.Counts)+1)/2)
	for i, n := range h.Counts {
		out[i/2] += n
	}
	h.Counts, h.Width = out, 2*h.Width
}

// Points returns the non-empty bins, each at its last second.
func (h Histogram) Points() []Count {
	var out []Count
	for i, n := range h.Counts {
		if n > 0 {
			out = append(out, Count{Time: time.Unix(h.Start+int64(i)*h.Width+h.Width-1, 0).UTC(), N: n})
		}
	}
	return out
}

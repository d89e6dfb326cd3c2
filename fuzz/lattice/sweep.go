package lattice

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// free marks an axis a row leaves to the domain's defaults: its key is not
// written, and no pair of it is counted.
const free = -1

// sweep builds rows one at a time, greedily (AETG's one-candidate form):
// take the first pair not yet held, pin it, then give every other axis the
// value that holds the most new pairs with the axes already set. A row the
// domain refuses is repaired by freeing unpinned axes one by one; a pair
// that no repaired row holds is unrealizable. Deterministic: the same
// domain and seeds give the same rows, so a sweep resumes by row index.
type sweep struct {
	d      domain.Domain
	axes   []Axis
	offset [][]int // offset[i][j] (i < j): the first pair index of axes i, j
	held   []bool  // per pair: some row holds it
	dead   []bool  // per pair: no row can hold it
	total  int
	seen   map[string]bool // row IDs already taken
}

func newSweep(d domain.Domain, axes []Axis) *sweep {
	s := &sweep{d: d, axes: axes, offset: make([][]int, len(axes)), seen: map[string]bool{}}
	for i := range axes {
		s.offset[i] = make([]int, len(axes))
		for j := i + 1; j < len(axes); j++ {
			s.offset[i][j] = s.total
			s.total += len(axes[i].Values) * len(axes[j].Values)
		}
	}
	s.held, s.dead = make([]bool, s.total), make([]bool, s.total)
	return s
}

// pair is the index of the pair (axis i = value a, axis j = value b).
func (s *sweep) pair(i, a, j, b int) int {
	if i > j {
		i, a, j, b = j, b, i, a
	}
	return s.offset[i][j] + a*len(s.axes[j].Values) + b
}

// unpair is the inverse of pair.
func (s *sweep) unpair(p int) (i, a, j, b int) {
	for i = range s.axes {
		for j = i + 1; j < len(s.axes); j++ {
			n := len(s.axes[i].Values) * len(s.axes[j].Values)
			if p < s.offset[i][j]+n {
				r := p - s.offset[i][j]
				return i, r / len(s.axes[j].Values), j, r % len(s.axes[j].Values)
			}
		}
	}
	return -1, 0, -1, 0
}

// run sweeps the pairs of two independent axes first, in rows that leave
// every derived axis to its derivation (a matrix count one off its legal
// values with the register counts that follow from it), then the pairs of
// the derived axes, in rows where any axis may take any value.
func (s *sweep) run(l *Lattice) {
	covered := 0
	for _, consistent := range []bool{true, false} {
		for p := range s.total {
			if s.held[p] || s.dead[p] || s.consistent(p) != consistent {
				continue
			}
			row, v, ok := s.build(p, consistent)
			if !ok {
				s.dead[p] = true
				continue
			}
			covered += s.hold(row) + s.hold(s.actual(row, v))
			id := domain.ID(s.d.Name, v.Encode())
			if s.seen[id] {
				continue // another spelling of a value a row has: its pairs count, the case is judged once
			}
			s.seen[id] = true
			l.rows = append(l.rows, v)
			l.covered = append(l.covered, covered)
		}
	}
	if n := len(l.covered); n > 0 {
		l.covered[n-1] = covered // a last duplicate row's pairs
	}
	l.Pairs = covered
	for p := range s.total {
		if s.dead[p] && !s.held[p] {
			l.Unrealizable++
		}
	}
}

// consistent reports whether pair p is of two independent axes.
func (s *sweep) consistent(p int) bool {
	i, _, j, _ := s.unpair(p)
	return !s.axes[i].Derived && !s.axes[j].Derived
}

// build makes a row that holds pair p, or reports that none the domain
// parses does (the pair alone, the rest left to the defaults, is refused).
// A consistent row leaves the derived axes to their derivation.
// Every other axis then takes, of the values that hold new pairs with the
// axes already set, the one holding the most that the domain still parses;
// an axis no such value fits is left free.
func (s *sweep) build(p int, consistent bool) ([]int, domain.Value, bool) {
	i, a, j, b := s.unpair(p)
	row := make([]int, len(s.axes))
	for x := range row {
		row[x] = free
		if consistent && s.axes[x].Derived {
			row[x] = 0 // omitted: derived
		}
	}
	row[i], row[j] = a, b
	v, err := s.parse(row)
	if err != nil {
		return nil, nil, false
	}
	if full, w, ok := s.greedy(row, i, j); ok {
		return full, w, true // most rows parse whole: one parse, not one an axis
	}
	for x := range s.axes {
		if x == i || x == j || row[x] != free {
			continue
		}
		for _, c := range s.ranked(row, x) {
			row[x] = c
			if w, err := s.parse(row); err == nil {
				v = w
				break
			}
			row[x] = free
		}
	}
	return row, v, true
}

// greedy fills the free axes of a copy of row with their best values
// without asking the domain, then parses it once.
func (s *sweep) greedy(row []int, i, j int) ([]int, domain.Value, bool) {
	full := slices.Clone(row)
	for x := range s.axes {
		if x == i || x == j || full[x] != free {
			continue
		}
		if r := s.ranked(full, x); len(r) > 0 {
			full[x] = r[0]
		}
	}
	v, err := s.parse(full)
	return full, v, err == nil
}

// ranked lists the values of axis x that hold pairs not yet held with the
// axes already set, the most first (the first value on a tie).
func (s *sweep) ranked(row []int, x int) []int {
	gain := make([]int, len(s.axes[x].Values))
	var vals []int
	for v := range s.axes[x].Values {
		for y, w := range row {
			if y == x || w == free {
				continue
			}
			if q := s.pair(x, v, y, w); !s.held[q] && !s.dead[q] {
				gain[v]++
			}
		}
		if gain[v] > 0 {
			vals = append(vals, v)
		}
	}
	slices.SortStableFunc(vals, func(a, b int) int { return gain[b] - gain[a] })
	return vals
}

// hold marks the row's pairs held and returns how many were new.
func (s *sweep) hold(row []int) int {
	n := 0
	for x := range row {
		for y := x + 1; y < len(row); y++ {
			if row[x] == free || row[y] == free {
				continue
			}
			if q := s.pair(x, row[x], y, row[y]); !s.held[q] {
				s.held[q] = true
				n++
			}
		}
	}
	return n
}

// actual is the row as the domain filled it in: an axis the row left free
// or to its derivation takes the index of the value the parsed case has,
// when the axis has that value. A row that derives B's type from A's holds
// the pair of that type with every other axis too, and rows of the derived
// axes' pairs need not hold it again (mma took 588 rows, 490 so).
func (s *sweep) actual(row []int, v domain.Value) []int {
	js, err := json.Marshal(v)
	if err != nil {
		return row
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(js, &obj) != nil {
		return row
	}
	out := slices.Clone(row)
	for x, a := range s.axes {
		if row[x] != free && a.Values[row[x]] != nil {
			continue
		}
		got, ok := obj[a.Key]
		if !ok {
			continue
		}
		got = compact(got)
		if k := slices.IndexFunc(a.Values, func(w json.RawMessage) bool { return w != nil && bytes.Equal(w, got) }); k >= 0 {
			out[x] = k
		}
	}
	return out
}

// parse spells the row as the domain's JSON form and parses it: the
// domain derives what the row leaves out.
func (s *sweep) parse(row []int) (domain.Value, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for x, v := range row {
		if v == free || s.axes[x].Values[v] == nil {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(s.axes[x].Key)
		b.Write(key)
		b.WriteByte(':')
		b.Write(s.axes[x].Values[v])
	}
	b.WriteByte('}')
	return s.d.ParseJSON(b.Bytes())
}

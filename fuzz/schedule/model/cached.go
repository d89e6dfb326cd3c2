package model

import (
	"fmt"
	"strings"
	"sync"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// cache memoizes the model per value: a rule set's checks all ask it, and
// a judgment is checked twice.
var cache = struct {
	sync.Mutex
	m map[sc.Value]*Result
}{m: map[sc.Value]*Result{}}

const cacheSize = 64

// Cached is Check(v), memoized: the rule set's checks, the self-checks and
// the fuzz targets share one run.
func Cached(v sc.Value) *Result {
	cache.Lock()
	r, ok := cache.m[v]
	cache.Unlock()
	if ok {
		return r
	}
	r = Check(v)
	cache.Lock()
	if len(cache.m) >= cacheSize {
		clear(cache.m)
	}
	cache.m[v] = r
	cache.Unlock()
	return r
}

// diagWitnessSteps is how many witness steps a diagnostic carries.
const diagWitnessSteps = 8

// Diagnostic is what a verdict says of rule's finding after its message:
// the detail, the last steps of the witness and the states explored; ""
// when r has no finding of rule.
func (r *Result) Diagnostic(rule string) string {
	f := r.Find(rule)
	if f == nil {
		return ""
	}
	w := f.Witness
	if len(w) > diagWitnessSteps {
		w = append([]string{"..."}, w[len(w)-diagWitnessSteps:]...)
	}
	d := ": " + f.Detail
	if len(w) > 0 {
		d += " | witness: " + strings.Join(w, "; ")
	}
	return d + fmt.Sprintf(" [%d states]", r.States)
}

// CheckPermutation is an exact check of the model: the roles are
// symmetric, so reversing their order must not change whether a schedule
// is ok. It runs when the exploration was complete and small.
func CheckPermutation(v sc.Value) error {
	r1 := Cached(v)
	if !r1.Complete || r1.States > 4000 || v.NRoles < 2 {
		return nil
	}
	p := permuteRoles(v)
	r2 := CheckBound(p, v.StateBound())
	if !r2.Complete {
		return nil
	}
	ok1, ok2 := r1.Verdict() == "ok", r2.Verdict() == "ok"
	if ok1 != ok2 {
		return fmt.Errorf("model verdict %s, but %s with the roles in reverse order", r1.Verdict(), r2.Verdict())
	}
	return nil
}

// permuteRoles reverses the role order.
func permuteRoles(v sc.Value) sc.Value {
	n := int(v.NRoles)
	p := v
	for i := range n {
		p.Roles[i] = v.Roles[n-1-i]
	}
	return p
}

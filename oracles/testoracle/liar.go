package testoracle

import (
	"context"
	"crypto/sha256"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Liar is a lying test oracle: it wraps a real oracle and answers the
// opposite verdict (accept for reject, reject for anything else) for one
// case in OneIn, chosen by the case ID, so every liar lies about the same
// cases. Each lie's diagnostic carries Marker, so that an audit of the
// store counts every lie it kept. It is what a broken or hostile worker
// sends, for the spot checks' tests and the soak.
type Liar struct {
	oracles.Oracle
	OneIn  int
	Marker string
}

// Lies reports whether the liar lies about the case.
func (l Liar) Lies(caseID string) bool {
	sum := sha256.Sum256([]byte(caseID))
	return l.OneIn > 0 && int(sum[0])%l.OneIn == 0
}

// Judge judges with the wrapped oracle, then flips the chosen verdicts.
func (l Liar) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	vs, err := l.Oracle.Judge(ctx, cases)
	if err != nil {
		return vs, err
	}
	for i, v := range vs {
		if !l.Lies(v.Case) {
			continue
		}
		if v.Kind == oracles.Reject {
			vs[i].Kind, vs[i].Rule = oracles.Accept, ""
		} else {
			vs[i].Kind = oracles.Reject
		}
		vs[i].Diagnostic = "lie: " + l.Marker
	}
	return vs, nil
}

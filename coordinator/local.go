package coordinator

import (
	"context"
	"fmt"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// JudgeLocal runs every oracle over the cases it can judge, in batches of
// batchSize, oracles in parallel, and returns each case's verdicts by case ID.
// It is the in-process engine behind `legalfuzz judge`; campaigns distribute
// the same work through NATS.
func JudgeLocal(ctx context.Context, orcs []oracles.Oracle, cases []domain.Case, batchSize int) (map[string][]oracles.Verdict, error) {
	if batchSize < 1 {
		batchSize = 1
	}
	var (
		mu       sync.Mutex
		verdicts = map[string][]oracles.Verdict{}
		wg       sync.WaitGroup
		errs     = make([]error, len(orcs))
	)
	for i, o := range orcs {
		var mine []domain.Case
		for _, c := range cases {
			if o.Judges(c.Domain) {
				mine = append(mine, c)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = judgeBatches(ctx, o, mine, batchSize, func(vs []oracles.Verdict) {
				mu.Lock()
				defer mu.Unlock()
				for _, v := range vs {
					verdicts[v.Case] = append(verdicts[v.Case], v)
				}
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("oracle %s: %w", orcs[i].Name(), err)
		}
	}
	return verdicts, nil
}

func judgeBatches(ctx context.Context, o oracles.Oracle, cases []domain.Case, size int, emit func([]oracles.Verdict)) error {
	for start := 0; start < len(cases); start += size {
		batch := cases[start:min(start+size, len(cases))]
		vs, err := o.Judge(ctx, batch)
		if err != nil {
			return err
		}
		if len(vs) != len(batch) {
			return fmt.Errorf("%d verdicts for %d cases", len(vs), len(batch))
		}
		emit(vs)
	}
	return nil
}

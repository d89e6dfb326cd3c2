package testoracle_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
)

func seeds(t *testing.T, n int) []domain.Case {
	t.Helper()
	var cs []domain.Case
	for _, v := range kindword.Seeds()[:n] {
		cs = append(cs, domain.NewCase(kindword.Name, v))
	}
	return cs
}

func TestFixedLatency(t *testing.T) {
	cs := seeds(t, 4)
	ctx := context.Background()
	t.Run("verdicts", func(t *testing.T) {
		o := testoracle.New(testoracle.Config{Name: "ptxas", Kind: oracles.Reject, Domains: []string{"kindword"},
			Crash: func(c domain.Case) bool { return c.ID == cs[2].ID }})
		vs, err := o.Judge(ctx, append(cs, domain.Case{Domain: "ldsm", ID: "x"}))
		if err != nil {
			t.Fatal(err)
		}
		want := []oracles.Kind{oracles.Reject, oracles.Reject, oracles.Error, oracles.Reject, oracles.Unsupported}
		for i, v := range vs {
			if v.Kind != want[i] || v.Oracle != "ptxas" {
				t.Errorf("case %d: %s %s, want ptxas %s", i, v.Oracle, v.Kind, want[i])
			}
		}
		if o.Batches() != 1 || o.Cases() != 5 {
			t.Errorf("counted %d batches, %d cases", o.Batches(), o.Cases())
		}
	})
	t.Run("latency per batch and per case", func(t *testing.T) {
		for _, perCase := range []bool{false, true} {
			o := testoracle.New(testoracle.Config{Latency: 20 * time.Millisecond, PerCase: perCase})
			start := time.Now()
			if _, err := o.Judge(ctx, cs); err != nil {
				t.Fatal(err)
			}
			want := 20 * time.Millisecond
			if perCase {
				want *= time.Duration(len(cs))
			}
			if got := time.Since(start); got < want {
				t.Errorf("per case %v: judged in %s, want at least %s", perCase, got, want)
			}
		}
	})
	t.Run("latency ends with the context", func(t *testing.T) {
		o := testoracle.New(testoracle.Config{Latency: time.Hour})
		ctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		if _, err := o.Judge(ctx, cs); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v, want the context's", err)
		}
	})
	t.Run("fail", func(t *testing.T) {
		o := testoracle.New(testoracle.Config{Fail: func(c domain.Case) bool { return c.ID == cs[3].ID }})
		if _, err := o.Judge(ctx, cs); !errors.Is(err, testoracle.ErrFailed) {
			t.Errorf("err %v, want ErrFailed", err)
		}
		if _, err := o.Judge(ctx, cs[:3]); err != nil {
			t.Errorf("a batch without the failing case: %v", err)
		}
	})
	t.Run("hang ignores the context until released", func(t *testing.T) {
		o := testoracle.New(testoracle.Config{Hang: func(domain.Case) bool { return true }})
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		done := make(chan error, 1)
		go func() { _, err := o.Judge(ctx, cs); done <- err }()
		select {
		case err := <-done:
			t.Fatalf("returned %v while hung", err)
		case <-time.After(50 * time.Millisecond):
		}
		o.Release()
		if err := <-done; err == nil {
			t.Error("a released hang returned no error")
		}
	})
}

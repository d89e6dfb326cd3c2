package waitcnt

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// itemJSON is one program step: {"op": "lds", "token": 0} or {"wait": [0, 2]}.
// On input "token" is optional and, when given, must be the operation's
// ordinal; the output always carries it, so a person can read the waits.
type itemJSON struct {
	Op    *string `json:"op,omitempty"`
	Token *int    `json:"token,omitempty"`
	Wait  []int   `json:"wait,omitempty"`
}

// jsonForm is the JSON form. Defaults: gpu gfx942, an empty program.
type jsonForm struct {
	GPU     *string    `json:"gpu"`
	Program []itemJSON `json:"program"`
}

// MarshalJSON writes the gpu and every item, operations with their tokens.
func (v Value) MarshalJSON() ([]byte, error) {
	gpu := v.GPU.String()
	f := jsonForm{GPU: &gpu, Program: []itemJSON{}}
	tok := 0
	for _, it := range v.Program() {
		if it.Wait {
			f.Program = append(f.Program, itemJSON{Wait: it.TokenList()})
			continue
		}
		k, t := it.Kind.String(), tok
		f.Program = append(f.Program, itemJSON{Op: &k, Token: &t})
		tok++
	}
	return json.Marshal(f)
}

// ParseJSON parses the strict JSON form: unknown fields, unknown kinds and
// gpus, a wait naming a token not issued before it (or naming none, or one
// twice), an item that is both or neither an operation and a wait, and more
// than MaxItems items are errors naming the field.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseForm("waitcnt", data, jsonForm.value)
}

func (f jsonForm) value() (Value, error) {
	v := Value{GPU: GFX942}
	if err := domain.OptEnum(GPUs, "gpu", f.GPU, &v.GPU); err != nil {
		return Value{}, err
	}
	if len(f.Program) > MaxItems {
		return Value{}, fmt.Errorf("field \"program\": %d items, at most %d", len(f.Program), MaxItems)
	}
	ops := 0
	for i, ij := range f.Program {
		it, err := ij.item(ops)
		if err != nil {
			return Value{}, fmt.Errorf("field \"program[%d]\": %w", i, err)
		}
		if !it.Wait {
			ops++
		}
		v.Items[i] = it
	}
	v.N = uint8(len(f.Program))
	return v, nil
}

// item checks one step; ops tokens were issued before it.
func (ij itemJSON) item(ops int) (Item, error) {
	switch {
	case ij.Op != nil && ij.Wait != nil:
		return Item{}, errors.New("both \"op\" and \"wait\"")
	case ij.Op == nil && ij.Wait == nil:
		return Item{}, errors.New("neither \"op\" nor \"wait\"")
	case ij.Op != nil:
		k, err := Kinds.Parse("op", *ij.Op)
		if err != nil {
			return Item{}, err
		}
		if ij.Token != nil && *ij.Token != ops {
			return Item{}, fmt.Errorf("field \"token\": %d, but this operation is token %d", *ij.Token, ops)
		}
		return Item{Kind: Kind(k)}, nil
	case ij.Token != nil:
		return Item{}, errors.New("field \"token\": a wait has no token")
	case len(ij.Wait) == 0:
		return Item{}, errors.New("field \"wait\": names no token")
	}
	it := Item{Wait: true}
	for _, t := range ij.Wait {
		if err := domain.Range("wait", int64(t), 0, int64(ops)-1); err != nil {
			return Item{}, fmt.Errorf("%w: a wait names tokens issued before it", err)
		}
		if it.Tokens&(1<<t) != 0 {
			return Item{}, fmt.Errorf("field \"wait\": token %d named twice", t)
		}
		it.Tokens |= 1 << t
	}
	return it, nil
}

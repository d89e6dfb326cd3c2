package opsurface

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Trim writes the dump anew with only what reading the named ops needs:
// their records, those they refer to however indirectly, and every
// buildable type (the words composite constraints are summarized in). A
// dump of NVVMOps.td is about 5 MB, what its ops need a fraction of it;
// the cache keeps the trimmed dump, and tests keep a few ops' as golden
// files.
func (rs *Records) Trim(ops []string) ([]byte, error) {
	keep := map[string]bool{}
	todo := append(slices.Clone(ops), rs.InstancesOf("BuildableType")...)
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if keep[name] {
			continue
		}
		data, ok := rs.raw[name]
		if !ok {
			return nil, fmt.Errorf("record %s: not in the dump", name)
		}
		keep[name] = true
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("record %s: %w", name, err)
		}
		walkRefs(v, func(def string) {
			if _, ok := rs.raw[def]; ok && !keep[def] {
				todo = append(todo, def)
			}
		})
	}
	out := make(map[string]json.RawMessage, len(keep)+1)
	for name := range keep {
		out[name] = rs.raw[name]
	}
	io := map[string][]string{}
	for class, names := range rs.instanceOf {
		var kept []string
		for _, n := range names {
			if keep[n] {
				kept = append(kept, n)
			}
		}
		if len(kept) > 0 {
			io[class] = kept
		}
	}
	ioData, err := json.Marshal(io)
	if err != nil {
		return nil, err
	}
	out["!instanceof"] = ioData
	return json.MarshalIndent(out, "", " ")
}

// walkRefs calls f with every record a decoded JSON value refers to.
func walkRefs(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		if x["kind"] == "def" {
			if d, ok := x["def"].(string); ok {
				f(d)
			}
		}
		for _, e := range x {
			walkRefs(e, f)
		}
	case []any:
		for _, e := range x {
			walkRefs(e, f)
		}
	}
}

package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/plan"
)

// InputError is a run input that does not fit the flow's declarations; the
// CLI reports it as a usage error.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// PrepareInputs checks raw run inputs against the declarations: unknown
// names, required inputs, declared types and enums; it fills defaults.
// A string given for a non-string input (from --input k=v) is converted
// to the declared type. The result is normalised through JSON, so that the
// inputs hash and every expression see the same values on every run.
func PrepareInputs(decls map[string]plan.Input, raw map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(decls))
	var names []string
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		d, ok := decls[k]
		if !ok {
			return nil, &InputError{fmt.Sprintf("input %q is not declared by the flow; declared inputs: %s", k, declared(decls))}
		}
		v, err := coerce(k, d, raw[k])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	keys := make([]string, 0, len(decls))
	for k := range decls {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := out[k]; ok {
			continue
		}
		d := decls[k]
		switch {
		case d.Default != nil:
			out[k] = d.Default
		case d.Required:
			return nil, &InputError{fmt.Sprintf("input %q is required (%s); pass --input %s=VALUE or put it in --input-file", k, d.Type, k)}
		}
	}
	// Normalised as the run records them (canonical JSON read back), so
	// that a resumed run, which reads them from its record, sees the same
	// values; encoding/json takes what the canonical path does not.
	if b, err := canon.AppendValue(nil, out); err == nil {
		if v, ok := canon.DecodeCanonical(b); ok {
			if norm, ok := v.(map[string]any); ok {
				return norm, nil
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &InputError{fmt.Sprintf("the inputs cannot be written as JSON: %v", err)}
	}
	var norm map[string]any
	if err := json.Unmarshal(b, &norm); err != nil {
		return nil, &InputError{err.Error()}
	}
	return norm, nil
}

func declared(decls map[string]plan.Input) string {
	if len(decls) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(decls))
	for k := range decls {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func coerce(name string, d plan.Input, v any) (any, error) {
	bad := func(got string) error {
		return &InputError{fmt.Sprintf("input %q must be %s, got %s", name, typeWord(d.Type), got)}
	}
	s, isStr := v.(string)
	switch d.Type {
	case "", "string":
		if !isStr {
			return nil, bad(fmt.Sprintf("%T", v))
		}
	case "number":
		if isStr {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, bad(strconv.Quote(s))
			}
			v = f
		} else if _, ok := toFloat(v); !ok {
			return nil, bad(fmt.Sprintf("%T", v))
		}
	case "integer":
		if isStr {
			i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return nil, bad(strconv.Quote(s))
			}
			v = i
		} else if f, ok := toFloat(v); !ok || f != math.Trunc(f) {
			return nil, bad(fmt.Sprintf("%v", v))
		}
	case "boolean":
		if isStr {
			b, err := strconv.ParseBool(strings.TrimSpace(s))
			if err != nil {
				return nil, bad(strconv.Quote(s))
			}
			v = b
		} else if _, ok := v.(bool); !ok {
			return nil, bad(fmt.Sprintf("%T", v))
		}
	case "object", "array":
		if isStr {
			var x any
			if err := json.Unmarshal([]byte(s), &x); err != nil {
				return nil, bad("text that is not JSON")
			}
			v = x
		}
		k := reflect.ValueOf(v).Kind()
		if d.Type == "object" && k != reflect.Map {
			return nil, bad(fmt.Sprintf("%T", v))
		}
		if d.Type == "array" && k != reflect.Slice {
			return nil, bad(fmt.Sprintf("%T", v))
		}
	}
	if len(d.Enum) > 0 {
		for _, e := range d.Enum {
			if reflect.DeepEqual(norm(e), norm(v)) {
				return v, nil
			}
		}
		return nil, &InputError{fmt.Sprintf("input %q must be one of %v, got %v", name, d.Enum, v)}
	}
	return v, nil
}

func typeWord(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	case "":
		return "a string"
	}
	return "a " + t
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// norm puts a value in its JSON-decoded form for comparison.
func norm(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var x any
	_ = json.Unmarshal(b, &x)
	return x
}

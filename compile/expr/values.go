package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"

	"github.com/agentlab/agentlab/canon"
)

// Values at run time are JSON-like: nil, bool, numbers, string, lists and
// maps with string keys. The engine may hand over Go slices and maps of
// concrete element types (rows as []map[string]any, columns as []string);
// they are read through the helpers below, never through methods.

// number is a numeric value: an int when it came from an integer, a
// float64 otherwise. Integer arithmetic stays exact until it overflows.
type number struct {
	i     int
	f     float64
	isInt bool
}

func (n number) float() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

func (n number) value() any {
	if n.isInt {
		return n.i
	}
	return n.f
}

func intNum(i int) number       { return number{i: i, isInt: true} }
func floatNum(f float64) number { return number{f: f} }

// asNumber reports whether v is a number and returns it.
func asNumber(v any) (number, bool) {
	switch x := v.(type) {
	case int:
		return intNum(x), true
	case int8:
		return intNum(int(x)), true
	case int16:
		return intNum(int(x)), true
	case int32:
		return intNum(int(x)), true
	case int64:
		return intNum(int(x)), true
	case uint8:
		return intNum(int(x)), true
	case uint16:
		return intNum(int(x)), true
	case uint32:
		return intNum(int(x)), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return floatNum(float64(x)), true
		}
		return intNum(int(x)), true
	case uint64:
		if x > math.MaxInt64 {
			return floatNum(float64(x)), true
		}
		return intNum(int(x)), true
	case float32:
		return floatNum(float64(x)), true
	case float64:
		return floatNum(x), true
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return intNum(int(i)), true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return floatNum(f), true
		}
	}
	return number{}, false
}

// asList reports whether v is a list and returns its items.
func asList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, true
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m
		}
		return out, true
	case string, nil, []byte:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// isMap reports whether v is a map with string keys.
func isMap(v any) bool {
	switch v.(type) {
	case map[string]any:
		return true
	case nil:
		return false
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String
}

// mapGet looks key up in a map with string keys.
func mapGet(v any, key string) (val any, found, ok bool) {
	if m, isM := v.(map[string]any); isM {
		val, found = m[key]
		return val, found, true
	}
	if !isMap(v) {
		return nil, false, false
	}
	rv := reflect.ValueOf(v)
	e := rv.MapIndex(reflect.ValueOf(key).Convert(rv.Type().Key()))
	if !e.IsValid() {
		return nil, false, true
	}
	return e.Interface(), true, true
}

// mapKeys returns the keys of a map with string keys, sorted so that
// keys() and values() are deterministic.
func mapKeys(v any) []string {
	var out []string
	if m, ok := v.(map[string]any); ok {
		for k := range m {
			out = append(out, k)
		}
	} else if isMap(v) {
		for _, k := range reflect.ValueOf(v).MapKeys() {
			out = append(out, k.String())
		}
	}
	sort.Strings(out)
	return out
}

// typeName names v's kind in messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	}
	if _, ok := asNumber(v); ok {
		return "a number"
	}
	if isMap(v) {
		return "a map"
	}
	if _, ok := asList(v); ok {
		return "a list"
	}
	return fmt.Sprintf("a value of type %T", v)
}

// Equal compares two values: numbers by value (1 == 1.0), lists and maps
// item by item.
func Equal(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if x, ok := asNumber(a); ok {
		y, ok := asNumber(b)
		if !ok {
			return false
		}
		if x.isInt && y.isInt {
			return x.i == y.i
		}
		return x.float() == y.float()
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	if isMap(a) {
		if !isMap(b) {
			return false
		}
		ka, kb := mapKeys(a), mapKeys(b)
		if len(ka) != len(kb) {
			return false
		}
		for i, k := range ka {
			if kb[i] != k {
				return false
			}
			va, _, _ := mapGet(a, k)
			vb, _, _ := mapGet(b, k)
			if !Equal(va, vb) {
				return false
			}
		}
		return true
	}
	if la, ok := asList(a); ok {
		lb, ok := asList(b)
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !Equal(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// Stringify renders a value as text, the same way everywhere: strings as
// they are, integers without decimals, other numbers in canonical JSON
// form, booleans as true/false, nil as the empty string, and lists and
// maps as compact canonical JSON.
func Stringify(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	if n, ok := asNumber(v); ok {
		if n.isInt {
			return strconv.Itoa(n.i), nil
		}
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			return "", fmt.Errorf("the number %v cannot be written", n.f)
		}
		return canon.FormatFloat(n.f), nil
	}
	b, err := canon.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("cannot write %s as text: %v", typeName(v), err)
	}
	return string(b), nil
}

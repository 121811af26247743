package canon

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendValue appends the canonical JSON of v to dst, exactly as Marshal(v)
// would write it, for writers that assemble a large canonical document
// (a plan) without the round trip through encoding/json and a decoder.
// The value types JSON decoding and YAML conversion produce (nil, bool,
// string, float64, int, int64, json.Number, []any, []string,
// map[string]any) are written directly; anything else goes through Marshal.
func AppendValue(dst []byte, v any) ([]byte, error) { return appendValue(dst, v, 0) }

// appendValue is AppendValue at nesting depth: past maxDepth (a value
// that deep, or one that holds itself) it hands over to encoding/json,
// which writes a deep value the same and refuses a cycle with an error.
func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return appendSlow(dst, v)
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return AppendString(dst, x), nil
	case float64:
		return AppendFloat(dst, x)
	case int:
		return AppendInt(dst, int64(x)), nil
	case int64:
		return AppendInt(dst, x), nil
	case json.Number:
		if !ValidNumber(string(x)) {
			return appendSlow(dst, v) // encoding/json's error, or its "0" for ""
		}
		s, err := Number(string(x))
		if err != nil {
			return nil, err
		}
		return append(dst, s...), nil
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, e)
		}
		return append(dst, ']'), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		keys, ok := SortedKeys(x)
		if !ok {
			return appendSlow(dst, v) // Marshal's replacement of invalid UTF-8 can reorder or merge keys
		}
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(AppendString(dst, k), ':')
			var err error
			if dst, err = appendValue(dst, x[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	if v == nil {
		return append(dst, "null"...), nil
	}
	if b, ok := appendRV(dst, reflect.ValueOf(v), depth); ok {
		return b, nil
	}
	return appendSlow(dst, v)
}

// appendSlow appends v's canonical JSON the general way: encoding/json,
// then the result re-written in canonical form.
func appendSlow(dst []byte, v any) ([]byte, error) {
	b, err := marshalSlow(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// AppendFloat appends f in canonical form; NaN and infinities are refused,
// as encoding/json refuses them.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("canon: unsupported value %v", f)
	}
	return append(dst, FormatFloat(f)...), nil
}

// AppendInt appends i in canonical form: integers beyond 2^53 are written
// as the float64 they round to, as Number does.
func AppendInt(dst []byte, i int64) []byte {
	if i >= -(1<<53) && i <= 1<<53 {
		return strconv.AppendInt(dst, i, 10)
	}
	return append(dst, FormatFloat(float64(i))...)
}

// SortedKeys returns the keys of m in canonical order (by their UTF-8
// bytes). ok is false when a key is not valid UTF-8: encoding/json writes
// such a key with U+FFFD in place of the bad bytes, which can change its
// place in the order or make two keys one, so the caller must take the
// slow path (Marshal).
func SortedKeys[V any](m map[string]V) (keys []string, ok bool) {
	keys = make([]string, 0, len(m))
	for k := range m {
		if !utf8.ValidString(k) {
			return nil, false
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, true
}

package canon

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestAppendValueEqualsMarshal holds the direct writer to Marshal on every
// type it writes itself and at the edges where the two could part: integers
// at ±2^53, floats at the exponent switches, NaN and infinities, nil and
// empty collections, key order, invalid UTF-8 in a key (which Marshal
// rewrites, so the writer must hand it over), errors deep inside a value.
func TestAppendValueEqualsMarshal(t *testing.T) {
	type pair struct {
		B int `json:"b"`
		A int `json:"a"`
	}
	cases := map[string]any{
		"nil":                nil,
		"true":               true,
		"false":              false,
		"plain string":       "plain",
		"escaped string":     "q\"\\\n\x01<&>\u2028",
		"float":              0.5,
		"negative zero":      math.Copysign(0, -1),
		"float 1e21":         1e21,
		"float 1e-7":         1e-7,
		"int":                42,
		"int zero":           0,
		"int 2^53":           1 << 53,
		"int 2^53+1":         1<<53 + 1,
		"int -(2^53)":        -(1 << 53),
		"int -(2^53)-1":      -(1 << 53) - 1,
		"int64 2^53+1":       int64(1<<53 + 1),
		"int64 -(2^53)-1":    int64(-(1 << 53) - 1),
		"int64 max":          int64(math.MaxInt64),
		"number":             json.Number("1.50"),
		"number big":         json.Number("123456789012345678901234"),
		"nil []any":          []any(nil),
		"empty []any":        []any{},
		"[]any":              []any{1, "a", nil, []any{true}, map[string]any{"z": 1, "a": 2}},
		"nil []string":       []string(nil),
		"empty []string":     []string{},
		"[]string":           []string{"b", "a", "é"},
		"nil map":            map[string]any(nil),
		"empty map":          map[string]any{},
		"map":                map[string]any{"b": 1, "a": []string{"x"}, "é": nil, "A": 0.25, "": "empty key"},
		"map invalid key":    map[string]any{"a\xff": 1, "a\xfe": 2, "b": 3},
		"struct (fallback)":  pair{B: 1, A: 2},
		"nested struct":      []any{pair{B: 2}},
		"map of struct":      map[string]any{"p": pair{A: 3}},
		"string invalid utf": "bad\xff",
	}
	for name, v := range cases {
		want, werr := Marshal(v)
		got, gerr := AppendValue([]byte("x"), v)
		if werr != nil || gerr != nil {
			t.Errorf("%s: Marshal error %v, AppendValue error %v; want neither", name, werr, gerr)
			continue
		}
		if string(got) != "x"+string(want) {
			t.Errorf("%s: AppendValue wrote %s, Marshal %s", name, got, want)
		}
	}
}

// TestAppendValueRefusesWhatMarshalRefuses: a value with no JSON form, at
// the top or deep inside a collection, is an error from both writers,
// never a partial document.
func TestAppendValueRefusesWhatMarshalRefuses(t *testing.T) {
	cases := map[string]any{
		"NaN":                 math.NaN(),
		"+Inf":                math.Inf(1),
		"-Inf":                math.Inf(-1),
		"NaN in a list":       []any{1, math.NaN()},
		"-Inf in a map":       map[string]any{"a": 1, "b": math.Inf(-1)},
		"deep in a map":       map[string]any{"a": []any{map[string]any{"b": math.NaN()}}},
		"out-of-range number": json.Number("1e400"),
		"not a number":        json.Number("twelve"),
		"number in a list":    []any{json.Number("-1e999")},
		"a channel":           make(chan int),
		"a channel in a list": []any{make(chan int)},
	}
	for name, v := range cases {
		if _, err := Marshal(v); err == nil {
			t.Errorf("%s: Marshal accepted it", name)
		}
		if got, err := AppendValue([]byte("x"), v); err == nil {
			t.Errorf("%s: AppendValue wrote %s", name, got)
		}
	}
	if _, err := AppendFloat(nil, math.Inf(-1)); err == nil {
		t.Error("AppendFloat accepted -Inf")
	}
}

// TestNumberRefusesWhatJSONCannotHold: strconv reads words JSON has no
// number for (Inf, NaN, infinity); Number must refuse them, not write
// them into a canonical document.
func TestNumberRefusesWhatJSONCannotHold(t *testing.T) {
	for _, lit := range []string{"NaN", "Inf", "+Inf", "-Inf", "-infinity", "1e400", "-1e400", "0x10", ""} {
		if s, err := Number(lit); err == nil {
			t.Errorf("Number(%q) = %q; want an error", lit, s)
		}
	}
}

// TestMarshalKeepsEncodingJSONsError: a value encoding/json refuses is
// reported with its reason, not as a canonicalisation of nothing.
func TestMarshalKeepsEncodingJSONsError(t *testing.T) {
	_, err := Marshal(make(chan int))
	if err == nil || !strings.Contains(err.Error(), "unsupported type") {
		t.Fatalf("Marshal(chan) = %v; want encoding/json's unsupported type", err)
	}
}

// TestSortedKeys: keys in byte order when every key is valid UTF-8; a
// key that is not makes the caller take Marshal's path.
func TestSortedKeys(t *testing.T) {
	keys, ok := SortedKeys(map[string]int{"b": 1, "a": 2, "é": 3, "B": 4})
	if !ok || strings.Join(keys, ",") != "B,a,b,é" {
		t.Errorf("SortedKeys = %q, %v; want B,a,b,é and ok", keys, ok)
	}
	if keys, ok := SortedKeys(map[string]int{}); !ok || len(keys) != 0 {
		t.Errorf("empty map: %q, %v", keys, ok)
	}
	if _, ok := SortedKeys(map[string]int{"a": 1, "b\xff": 2}); ok {
		t.Error("a key with invalid UTF-8 is sorted as bytes")
	}
}

// FuzzAppendValueEqualsMarshal: whatever JSON decodes to (with and without
// UseNumber), the direct writer and Marshal agree, error for error.
func FuzzAppendValueEqualsMarshal(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2.5,"x",null,true]}`, `[1e400]`, `{"a\u00ff":1}`, `[-0,1e21,1e-7,9007199254740993]`, `"\u2028"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, useNumber := range []bool{false, true} {
			dec := json.NewDecoder(strings.NewReader(s))
			if useNumber {
				dec.UseNumber()
			}
			var v any
			if dec.Decode(&v) != nil {
				return
			}
			want, werr := Marshal(v)
			got, gerr := AppendValue(nil, v)
			if (werr != nil) != (gerr != nil) || string(got) != string(want) {
				t.Fatalf("%q (UseNumber %v): AppendValue %s, %v; Marshal %s, %v", s, useNumber, got, gerr, want, werr)
			}
		}
	})
}

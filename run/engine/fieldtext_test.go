package engine

import (
	"encoding/json"
	"testing"
)

// TestFieldTextHostileLiteral plays a flow author who puts a figure where
// the checker might not look: a key of a literal mapping, a number of any
// Go type YAML or JSON decoding may give. Every one is in the text read.
func TestFieldTextHostileLiteral(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"a string", "GMV 9,999", "GMV 9,999"},
		{"a float", 9999.5, "9999.5"},
		{"an int", 9999, "9999"},
		{"an int64", int64(9999), "9999"},
		{"a uint64", uint64(9999), "9999"},
		{"a json.Number", json.Number("9999"), "9999"},
		{"a key", map[string]any{"9999": "gmv"}, "9999\ngmv"},
		{"nested", map[string]any{"a": []any{map[string]any{"b": 1.5}}}, "a\nb\n1.5"},
	}
	for _, c := range cases {
		if got := fieldText(c.v); got != c.want {
			t.Errorf("%s: fieldText(%#v) = %q, want %q", c.name, c.v, got, c.want)
		}
	}
}

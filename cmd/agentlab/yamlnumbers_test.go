package main

import (
	"reflect"
	"testing"
)

func TestWholeNumbers(t *testing.T) {
	tests := []struct {
		name    string
		in, out any
	}{
		{"a large whole float", 2e6, int64(2000000)},
		{"a fraction stays", 0.85, 0.85},
		{"negative whole", -3.0, int64(-3)},
		{"beyond 2^53 stays a float", 1e300, 1e300},
		{"nested", map[string]any{"a": []any{1.0, "x", 2.5}}, map[string]any{"a": []any{int64(1), "x", 2.5}}},
		{"not a number", "2e6", "2e6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := wholeNumbers(tc.in); !reflect.DeepEqual(got, tc.out) {
				t.Errorf("got %#v, want %#v", got, tc.out)
			}
		})
	}
}

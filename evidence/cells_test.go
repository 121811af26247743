package evidence

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestCell(t *testing.T) {
	cases := []struct {
		name   string
		in     any
		want   any
		wantOK bool
	}{
		{"nil", nil, nil, true},
		{"int", int64(7), int64(7), true},
		{"text", "x", "x", true},
		{"real", 1.5, 1.5, true},
		{"inf", math.Inf(1), nil, false},
		{"nan", math.NaN(), nil, false},
		{"blob", []byte{0xAB, 0x01}, "ab01", true},
		{"true", true, int64(1), true},
		{"false", false, int64(0), true},
		{"time", time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), "2026-01-02T02:04:05Z", true},
		{"other", int32(3), "3", true},
	}
	for _, c := range cases {
		got, ok := Cell(c.in)
		if ok != c.wantOK || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Cell(%v) = %#v, %v; want %#v, %v", c.name, c.in, got, ok, c.want, c.wantOK)
		}
	}
}

func TestColumnTypes(t *testing.T) {
	cases := []struct {
		name      string
		rows      [][]any
		want      []string
		wantAfter [][]any
	}{
		{"empty", [][]any{}, []string{TypeNull, TypeNull}, [][]any{}},
		{"all null", [][]any{{nil}, {nil}}, []string{TypeNull}, [][]any{{nil}, {nil}}},
		{"integer", [][]any{{int64(1)}, {nil}}, []string{TypeInteger}, [][]any{{int64(1)}, {nil}}},
		{"real widens integers", [][]any{{int64(1)}, {2.5}}, []string{TypeReal}, [][]any{{1.0}, {2.5}}},
		{"text wins", [][]any{{int64(1), "a"}, {"b", 2.0}}, []string{TypeText, TypeText}, [][]any{{int64(1), "a"}, {"b", 2.0}}},
	}
	for _, c := range cases {
		n := len(c.want)
		got := ColumnTypes(c.rows, n)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: types = %v, want %v", c.name, got, c.want)
		}
		if !reflect.DeepEqual(c.rows, c.wantAfter) {
			t.Errorf("%s: rows = %#v, want %#v", c.name, c.rows, c.wantAfter)
		}
	}
}

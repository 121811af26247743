package canon

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

type reflInner struct {
	Z string  `json:"z"`
	A float64 `json:"a,omitempty"`
}

type reflKind string

type reflAll struct {
	Name      string            `json:"name"`
	Omitted   string            `json:"omitted,omitempty"`
	Count     int               `json:"count"`
	Small     int8              `json:"small,omitempty"`
	Big       int64             `json:"big"`
	Unsigned  uint32            `json:"unsigned,omitempty"`
	Huge      uint64            `json:"huge,omitempty"`
	Ratio     float64           `json:"ratio"`
	Flag      bool              `json:"flag,omitempty"`
	Ptr       *float64          `json:"ptr,omitempty"`
	NilPtr    *reflInner        `json:"nil_ptr"`
	Inner     reflInner         `json:"inner"`
	Inners    []reflInner       `json:"inners,omitempty"`
	Strings   []string          `json:"strings"`
	Labels    map[string]string `json:"labels,omitempty"`
	ByName    map[string]reflInner
	Any       any             `json:"any"`
	Anys      []any           `json:"anys,omitempty"`
	Raw       json.RawMessage `json:"raw,omitempty"`
	Num       json.Number     `json:"num,omitempty"`
	Kind      reflKind        `json:"kind"`
	Skipped   string          `json:"-"`
	Dash      string          `json:"-,"`
	unexp     string
	NoTag     int
	OnlyOmit  string           `json:",omitempty"`
	Interface fmtStringer      `json:"iface,omitempty"`
	NamedMap  map[reflKind]int `json:"named_map,omitempty"`
}

type fmtStringer interface{ String() string }

type withTime struct {
	At time.Time `json:"at"`
}

type withFloat32 struct {
	F float32 `json:"f"`
}

type withString struct {
	N int `json:"n,string"`
}

type withBytes struct {
	B []byte `json:"b"`
}

type embedded struct {
	reflInner
	X int `json:"x"`
}

// dupNames names two fields "A": encoding/json lets the tagged one win.
type dupNames struct {
	A int
	B int `json:"A"`
}

type withArray struct {
	A [2]int `json:"a"`
}

type selfMarshal struct{ V int }

func (s selfMarshal) MarshalJSON() ([]byte, error) { return []byte(`{"own":1}`), nil }

type ptrMarshal struct{ V int }

func (s *ptrMarshal) MarshalText() ([]byte, error) { return []byte("text"), nil }

// slowJSON is the definition: encoding/json, then canonical form.
func slowJSON(t *testing.T, v any) (string, error) {
	t.Helper()
	b, err := marshalSlow(v)
	return string(b), err
}

// TestReflectEqualsSlowPath holds Marshal's direct writer to the round
// trip through encoding/json on every shape it writes and on every shape
// it must leave to encoding/json.
func TestReflectEqualsSlowPath(t *testing.T) {
	half := 0.5
	full := reflAll{
		Name: "n<&>\u2028\xff", Count: -3, Small: 7, Big: 1<<53 + 1, Unsigned: 9, Huge: 1 << 53, Ratio: 1e21,
		Flag: true, Ptr: &half, Inner: reflInner{Z: "z"}, Inners: []reflInner{{A: -0.0}, {Z: "é", A: 2}},
		Strings: []string{}, Labels: map[string]string{"b": "1", "a": "2", "é": ""},
		ByName: map[string]reflInner{"k": {Z: "v"}}, Any: map[string]any{"y": []any{1, "x"}, "b": reflInner{}},
		Anys: []any{nil, 1.5, "s", reflInner{Z: "q"}, []reflInner{}}, Raw: json.RawMessage(` {"b": 1, "a" : [1.0]} `),
		Num: "1.50", Kind: "k\"", Skipped: "never", Dash: "dash", unexp: "hidden", NoTag: 4, OnlyOmit: "o",
		NamedMap: map[reflKind]int{"z": 1, "a": 2},
	}
	cases := map[string]any{
		"zero struct":          reflAll{},
		"full struct":          full,
		"pointer to struct":    &full,
		"slice of pointers":    []*reflInner{nil, {Z: "a"}},
		"map of structs":       map[string]reflInner{"b": {}, "a": {Z: "x"}},
		"nil map of structs":   map[string]reflInner(nil),
		"named string":         reflKind("k"),
		"uint beyond 2^53":     uint64(1<<53 + 1),
		"uint64 max":           uint64(math.MaxUint64),
		"struct in any":        []any{map[string]any{"s": full}},
		"map with bad key":     map[string]reflInner{"a\xff": {}, "a\xfe": {}},
		"any map with bad key": reflAll{Any: map[string]any{"a\xff": 1, "a\xfe": 2}},
		"time (own marshaler)": withTime{At: time.Unix(0, 0).UTC()},
		"float32":              withFloat32{F: 0.1},
		"string option":        withString{N: 3},
		"bytes":                withBytes{B: []byte("hi")},
		"embedded":             embedded{reflInner: reflInner{Z: "e"}, X: 1},
		"duplicate names":      dupNames{A: 1, B: 2},
		"array":                withArray{A: [2]int{1, 2}},
		"own MarshalJSON":      []any{selfMarshal{V: 1}},
		"pointer MarshalText":  map[string]*ptrMarshal{"p": {V: 1}},
		"addressable field with a pointer MarshalText": &struct {
			P ptrMarshal `json:"p"`
		}{P: ptrMarshal{V: 1}},
		"empty number":       struct{ N json.Number }{},
		"nil raw":            struct{ R json.RawMessage }{},
		"empty raw":          struct{ R []byte }{R: []byte{}},
		"number 00":          reflAll{Num: "00"},
		"number hex":         []any{json.Number("0x10")},
		"non-string map key": map[int]string{2: "b", 1: "a"},
	}
	// The shapes the direct path must write itself (the rest it must hand
	// over), so that the comparison above is not between two slow paths.
	direct := []string{"zero struct", "full struct", "pointer to struct", "slice of pointers", "map of structs",
		"nil map of structs", "named string", "struct in any"}
	for _, name := range direct {
		if _, ok := appendReflect(nil, cases[name]); !ok {
			t.Errorf("%s: the direct path handed it over", name)
		}
	}
	for _, name := range []string{"uint beyond 2^53", "map with bad key", "time (own marshaler)",
		"float32", "string option", "bytes", "embedded", "duplicate names", "array",
		"pointer MarshalText", "addressable field with a pointer MarshalText", "empty number", "empty raw", "non-string map key"} {
		if _, ok := appendReflect(nil, cases[name]); ok {
			t.Errorf("%s: the direct path wrote it", name)
		}
	}
	for name, v := range cases {
		want, werr := slowJSON(t, v)
		got, gerr := Marshal(v)
		if (werr != nil) != (gerr != nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Errorf("%s: Marshal error %v, slow path error %v", name, gerr, werr)
			continue
		}
		if string(got) != want {
			t.Errorf("%s:\n  direct %s\n  slow   %s", name, got, want)
		}
	}
}

// TestReflectRefusesWhatSlowPathRefuses: no value without a JSON form is
// written by the direct path; the error is encoding/json's.
func TestReflectRefusesWhatSlowPathRefuses(t *testing.T) {
	nan := math.NaN()
	type cyc struct {
		Next *cyc `json:"next"`
	}
	loop := &cyc{}
	loop.Next = loop
	cases := map[string]any{
		"NaN field":        reflAll{Ratio: nan},
		"NaN behind ptr":   reflAll{Ptr: &nan},
		"Inf in any":       reflAll{Any: []any{math.Inf(1)}},
		"bad raw":          reflAll{Raw: json.RawMessage(`{"a":`)},
		"bad number":       reflAll{Num: "1e400"},
		"pointer cycle":    loop,
		"channel in any":   reflAll{Any: make(chan int)},
		"func in a struct": struct{ F func() }{F: func() {}},
	}
	for name, v := range cases {
		_, werr := marshalSlow(v)
		_, gerr := Marshal(v)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Errorf("%s: Marshal error %v, slow path error %v; want the same error", name, gerr, werr)
		}
	}
}

// FuzzReflectEqualsSlowPath fills a struct of every supported shape from
// the fuzzer's values and compares the two writers.
func FuzzReflectEqualsSlowPath(f *testing.F) {
	f.Add("name", "key", "val", int64(3), uint64(4), 0.5, true, []byte(`{"a":1}`))
	f.Add("\xff<&>", "\xfe", "\u2028", int64(-1<<60), uint64(1<<60), 1e-7, false, []byte(`[1.0,"x"]`))
	f.Fuzz(func(t *testing.T, s, k, val string, i int64, u uint64, fl float64, b bool, raw []byte) {
		v := reflAll{
			Name: s, Omitted: val, Count: int(i), Big: i, Huge: u, Ratio: fl, Flag: b, Ptr: &fl,
			Inner: reflInner{Z: k, A: fl}, Inners: []reflInner{{Z: val}}, Strings: []string{s, k},
			Labels: map[string]string{k: val, s: k}, ByName: map[string]reflInner{val: {Z: s}},
			Any: map[string]any{k: []any{s, fl, b, i}}, Anys: []any{reflInner{Z: k}, u}, Raw: json.RawMessage(raw),
			Num: json.Number(val), Kind: reflKind(k), NamedMap: map[reflKind]int{reflKind(s): int(i)},
		}
		want, werr := marshalSlow(v)
		got, gerr := Marshal(v)
		if (werr != nil) != (gerr != nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("Marshal error %v, slow path error %v", gerr, werr)
		}
		if string(got) != string(want) {
			t.Fatalf("direct %s\nslow   %s", got, want)
		}
	})
}

func TestValidNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "-1.5e+10": true, "1E-3": true, "0.0": true,
		"": false, "00": false, "01": false, "+1": false, "1.": false, ".5": false, "1e": false, "1e+": false,
		"0x10": false, "1_0": false, "Inf": false, "NaN": false, "-": false, " 1": false, "1 ": false,
	} {
		if got := ValidNumber(s); got != want {
			t.Errorf("ValidNumber(%q) = %v, want %v", s, got, want)
		}
		if want {
			if _, err := json.Marshal(json.Number(s)); err != nil {
				t.Errorf("%q: encoding/json refuses a number validNumber takes: %v", s, err)
			}
		}
	}
}

// TestCyclesAreErrorsNotCrashes: a value that holds itself — a map inside
// itself, a struct through an interface field — is refused with
// encoding/json's error by every writer, instead of recursing until the
// stack runs out.
func TestCyclesAreErrorsNotCrashes(t *testing.T) {
	m := map[string]any{"a": 1}
	m["self"] = m
	type node struct {
		Next any `json:"next"`
	}
	n := &node{}
	n.Next = n
	l := []any{1}
	l = append(l, map[string]any{"l": nil})
	l[1].(map[string]any)["l"] = l
	for name, v := range map[string]any{"map": m, "struct through an interface": n, "list through a map": l} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("%s: Marshal wrote a cycle", name)
		}
		if _, err := AppendValue(nil, v); err == nil {
			t.Errorf("%s: AppendValue wrote a cycle", name)
		}
	}
}

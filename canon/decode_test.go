package canon

import (
	"encoding/json"
	"reflect"
	"testing"
)

// unmarshalAny is the definition DecodeCanonical is held to.
func unmarshalAny(t testing.TB, b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("encoding/json refuses %q: %v", b, err)
	}
	return v
}

func TestDecodeCanonical(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"a":[1,-2.5,1e+21,1e-7,"x\n\"\\\u001f\t",null,true,false,{}],"b":{"c":[]},"é":"ü"}`, true},
		{`"plain"`, true},
		{`0`, true},
		{`[]`, true},
		{`"\b\f\r\u0000\u007f"`, false}, // \u007f is not how canon writes DEL
		{`"\u0041"`, false},
		{`{"b":1,"a":2}`, false},
		{`{"a":1,"a":2}`, false},
		{`[1,]`, false},
		{`1.50`, false},
		{`-0`, false},
		{`{"a":1} `, false},
		{` 1`, false},
		{`"` + "\xff" + `"`, false},
		{`{"a":`, false},
		{`[1 2]`, false},
		{``, false},
	} {
		v, ok := DecodeCanonical([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("DecodeCanonical(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if ok {
			if want := unmarshalAny(t, []byte(tc.in)); !reflect.DeepEqual(v, want) {
				t.Errorf("DecodeCanonical(%q) = %#v, encoding/json %#v", tc.in, v, want)
			}
		}
	}
}

// FuzzDecodeCanonicalEqualsUnmarshal: on the canonical form of any JSON
// the fuzzer finds, and on the fuzzer's bytes themselves, whatever
// DecodeCanonical accepts is what encoding/json reads, and it accepts
// every canonical text it can check.
func FuzzDecodeCanonicalEqualsUnmarshal(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5,"s\u0001"],"b":null}`))
	f.Add([]byte(`[true,false,{"x":{"y":[]}}]`))
	f.Add([]byte(`"\u00e9\n"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, canonicalOrNil(b)} {
			if in == nil {
				continue
			}
			v, ok := DecodeCanonical(in)
			if isCanonical(in) && !ok {
				t.Fatalf("canonical text %q refused", in)
			}
			if !ok {
				continue
			}
			if !isCanonical(in) {
				t.Fatalf("accepted %q, which is not canonical", in)
			}
			if want := unmarshalAny(t, in); !reflect.DeepEqual(v, want) {
				t.Fatalf("%q: DecodeCanonical %#v, encoding/json %#v", in, v, want)
			}
		}
	})
}

func canonicalOrNil(b []byte) []byte {
	c, err := Canonicalize(b)
	if err != nil {
		return nil
	}
	return c
}

package canon

import (
	"encoding/json"
	"reflect"
	"strings"
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

// exact returns s as bytes with no spare capacity, so that a reader going
// one byte too far fails instead of reading what happens to lie there.
func exact(s string) []byte {
	b := []byte(s)
	return b[:len(b):len(b)]
}

// TestCanonicalReadersRefuseBrokenText feeds the canonical readers
// (DecodeCanonical, IsCanonical, LookupString) text cut short, missing its
// punctuation or holding what canon never writes: each must refuse it,
// never read past its end, never take it for another value.
func TestCanonicalReadersRefuseBrokenText(t *testing.T) {
	for _, in := range []string{
		`[`, `[1`, `[1,`, `[x]`, `{`, `{"a":1,`, `{"a"`, `{"a":`, `{"a"x1}`, `{a":1}`, `{"a":1 }`, `{"a":{"b":1}`,
		"\"a\tb\"", "\"\x01\"", `"\u00`, `"\u001`, `"a\`, "\"\x80\"", `9007199254740993`, `12345678901234567890`,
		`{"tier":"x"`, `{"tier":"x",}`, `{"a":1,"tier"}`,
	} {
		if v, ok := DecodeCanonical(exact(in)); ok {
			t.Errorf("DecodeCanonical(%q) = %#v", in, v)
		}
		if IsCanonical(exact(in)) {
			t.Errorf("IsCanonical(%q)", in)
		}
		if v, ok := LookupString(exact(in), "tier"); ok {
			t.Errorf("LookupString(%q) = %q", in, v)
		}
	}
}

// TestDecodeCanonicalDepth: nesting up to the canonical reader's limit is
// read, one level more is left to encoding/json, for arrays and objects.
func TestDecodeCanonicalDepth(t *testing.T) {
	for _, open := range []string{"[", `{"k":`} {
		closing := "]"
		if open != "[" {
			closing = "}"
		}
		nest := func(n int) []byte {
			return exact(strings.Repeat(open, n) + "1" + strings.Repeat(closing, n))
		}
		if _, ok := DecodeCanonical(nest(MaxFastDepth)); !ok {
			t.Errorf("%s nested %d deep was refused", open, MaxFastDepth)
		}
		if _, ok := DecodeCanonical(nest(MaxFastDepth + 1)); ok {
			t.Errorf("%s nested %d deep was read", open, MaxFastDepth+1)
		}
		if IsCanonical(nest(MaxFastDepth)) != true || IsCanonical(nest(MaxFastDepth+1)) {
			t.Errorf("%s: IsCanonical disagrees with DecodeCanonical on the limit", open)
		}
	}
}

// TestLookupStringAtTheEnd: a wanted key whose value ends the object is
// found; one whose object is cut short after its value is not.
func TestLookupStringAtTheEnd(t *testing.T) {
	if v, ok := LookupString(exact(`{"a":{"b":1},"tier":"x"}`), "tier"); !ok || v != "x" {
		t.Errorf("last member: %q %v", v, ok)
	}
	if v, ok := LookupString(exact(`{"tier":"x"}`), "tier"); !ok || v != "x" {
		t.Errorf("only member: %q %v", v, ok)
	}
}

// TestCanonicalPrefix: the length of the canonical value a text starts
// with, whatever follows it; nothing for text that does not start with
// one, nesting to the limit included and one level more refused.
func TestCanonicalPrefix(t *testing.T) {
	deep := strings.Repeat("[", MaxFastDepth) + "1" + strings.Repeat("]", MaxFastDepth)
	for _, tc := range []struct {
		in string
		n  int
		ok bool
	}{
		{`{"a":1},"hash":"h"}`, 7, true},
		{`"x" trailing`, 3, true},
		{`12,`, 2, true},
		{deep + `,`, len(deep), true},
		{"[" + deep + "]", 0, false},
		{`{"b":1,"a":2}`, 0, false},
		{`1.50`, 0, false},
		{``, 0, false},
	} {
		n, ok := CanonicalPrefix(exact(tc.in))
		if n != tc.n || ok != tc.ok {
			t.Errorf("CanonicalPrefix(%.30s) = %d, %v; want %d, %v", tc.in, n, ok, tc.n, tc.ok)
		}
	}
}

// TestLookupStringRefusesOtherValues: a key whose value is not a plain
// string is not found, whatever the value's length.
func TestLookupStringRefusesOtherValues(t *testing.T) {
	for _, in := range []string{`{"tier":1}`, `{"tier":12}`, `{"tier":[1]}`, `{"tier":{}}`, `{"tier":null}`, `{"tier":"a\nb"}`} {
		if v, ok := LookupString(exact(in), "tier"); ok {
			t.Errorf("LookupString(%s) = %q", in, v)
		}
	}
}

// TestAppendStringOfBytesAboveASCII: a string of bytes that are all above
// ASCII takes the escaping path, which writes invalid UTF-8 as U+FFFD.
func TestAppendStringOfBytesAboveASCII(t *testing.T) {
	if got := string(AppendString(nil, "\xff\xfe")); got != "\"\uFFFD\uFFFD\"" {
		t.Errorf("AppendString of invalid UTF-8 = %q", got)
	}
	for in, want := range map[string]string{"é": `"é"`, "\x80": "\"\uFFFD\"", "\n": `"\n"`, "\x01": `"\u0001"`, " ": `" "`} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %q, want %q", in, got, want)
		}
	}
}

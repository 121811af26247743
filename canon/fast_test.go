package canon

import (
	"strings"
	"testing"
)

func TestIsCanonical(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`[]`, true},
		{`null`, true},
		{`{"a":[true,false,null],"b":1}`, true},
		{`{"a":{"b":{"c":[1,-2,0.5,1e+21,1.5e-7,"x"]}}}`, true},
		{"\"é\\u0001\\n\\\"\\\\<&>\u2028\"", true}, // U+2028 written as is
		{`"tab\t bs\b ff\f cr\r"`, true},
		{`123456789012345`, true},
		{`9007199254740992`, true},
		{`-9007199254740992`, true},
		{`1.2345678901234569e+23`, true},

		{`"\u0018"`, true},          // a control character with no short escape
		{`{"b":1,"a":2}`, false},    // unsorted
		{`{"\n":1,"\t":2}`, false},  // escaped keys: in byte order as written, not once decoded
		{`{"a":1,"a":2}`, false},    // duplicate key
		{` {}`, false},              // whitespace
		{`{"a": 1}`, false},         // whitespace
		{`[1 ,2]`, false},           // whitespace
		{`-0`, false},               // Number writes 0
		{`1.0`, false},              // Number writes 1
		{`1e3`, false},              // Number writes 1000
		{`01`, false},               // not JSON
		{`+1`, false},               // not JSON
		{`9007199254740993`, false}, // beyond 2^53: written as a float
		{`"\/"`, false},             // written as /
		{`"\u2028"`, false},         // written as the character itself
		{`"\u0041"`, false},         // written as A
		{`"\u000a"`, false},         // written as \n
		{`"\u001F"`, false},         // written in lowercase
		{`"\u0020"`, false},         // written as a space
		{"\"bad\xff\"", false},      // invalid UTF-8 becomes U+FFFD
		{"\"ctl\x01\"", false},      // raw control character: not JSON
		{`{"a\n":1}`, false},        // escaped key: left to the slow path
		{`{}{}`, false},             // trailing data
		{`[1,]`, false},             // not JSON
		{`{"a":1,}`, false},         // not JSON
		{`tru`, false},              // not JSON
		{``, false},                 // empty
		{`"unterminated`, false},    // not JSON
		{strings.Repeat("[", MaxFastDepth+1) + "0" + strings.Repeat("]", MaxFastDepth+1), false}, // deeper than the fast path follows
	}
	for _, tt := range tests {
		if got := isCanonical([]byte(tt.in)); got != tt.want {
			t.Errorf("isCanonical(%q) = %v, want %v", tt.in, got, tt.want)
		}
		// what the fast path accepts, the slow path must leave unchanged
		if tt.want {
			if slow, err := canonicalizeSlow([]byte(tt.in)); err != nil || string(slow) != tt.in {
				t.Errorf("%q is accepted, but its canonical form is %q (%v)", tt.in, slow, err)
			}
		}
	}
}

// TestCanonicalizeDeepFallsBack checks that text too deep for the fast
// path is still canonicalised by the slow path.
func TestCanonicalizeDeepFallsBack(t *testing.T) {
	in := strings.Repeat("[", MaxFastDepth+2) + strings.Repeat("]", MaxFastDepth+2)
	got, err := Canonicalize([]byte(in))
	if err != nil || string(got) != in {
		t.Fatalf("Canonicalize(deep) = %.20s…, %v", got, err)
	}
}

// TestCanonicalizeReturnsCopy: callers may keep the result while the
// input buffer is reused (a log read line by line).
func TestCanonicalizeReturnsCopy(t *testing.T) {
	in := []byte(`{"a":1}`)
	out, err := Canonicalize(in)
	if err != nil {
		t.Fatal(err)
	}
	in[2] = 'b'
	if string(out) != `{"a":1}` {
		t.Fatalf("the result shares memory with the input: %s", out)
	}
}

// FuzzCanonicalFastPath: the fast path may only accept text that the
// full decode-and-rewrite leaves unchanged, and Canonicalize must always
// agree with the slow path.
func FuzzCanonicalFastPath(f *testing.F) {
	for _, s := range []string{`{"a":[true,false,null],"b":1}`, `{"b":1,"a":2}`, `"\u001f\n"`, `-0`, `1e+21`,
		`[1.5e-7,0.1,-3]`, `{"":{"":[]}}`, "\"\xe2\x80\xa8\"", `"\u00e9"`, `{"a":1,"a":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		slow, serr := canonicalizeSlow(b)
		if isCanonical(b) && (serr != nil || string(slow) != string(b)) {
			t.Fatalf("fast path accepts %q, whose canonical form is %q (%v)", b, slow, serr)
		}
		got, err := Canonicalize(b)
		if (err != nil) != (serr != nil) || string(got) != string(slow) {
			t.Fatalf("Canonicalize(%q) = %q, %v; slow path %q, %v", b, got, err, slow, serr)
		}
		if serr == nil && len(slow) < 4096 && strings.Count(string(slow), "[")+strings.Count(string(slow), "{") < 100 &&
			!strings.Contains(string(slow), `\`) && !isCanonical(slow) {
			// every canonical text without escapes in its keys is recognised
			t.Fatalf("canonical %q is not recognised", slow)
		}
	})
}

package canon

import (
	"encoding/json"
	"testing"
)

func TestLookupString(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`{"kind":"run","outputs":{"tier":"inner"},"status":"succeeded","tier":"formal"}`, "formal", true},
		{`{"tier":"none"}`, "none", true},
		{`{"a":1}`, "", false},
		{`{}`, "", false},
		{`{"tier":1}`, "", false},
		{`{"tier":"a\"b"}`, "", false},
		{`{"TIER":"x","tier":"formal"}`, "", false}, // encoding/json would also match TIER
		{`{"tier":"formal","a":1}`, "", false},      // not canonical: keys out of order
		{`{"tier": "formal"}`, "", false},
		{`{"tier":"formal"} `, "", false},
		{`{"tier":"formal"}}`, "", false},
		{`["tier","formal"]`, "", false},
	} {
		got, ok := LookupString([]byte(tc.in), "tier")
		if got != tc.want || ok != tc.ok {
			t.Errorf("LookupString(%s) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzLookupStringEqualsUnmarshal: whatever LookupString finds is what
// encoding/json reads into a struct field of that name.
func FuzzLookupStringEqualsUnmarshal(f *testing.F) {
	f.Add([]byte(`{"kind":"run","status":"ok","tier":"formal"}`))
	f.Add([]byte(`{"Tier":"a","tier":"b"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, canonicalOrNil(b)} {
			got, ok := LookupString(in, "tier")
			if !ok {
				continue
			}
			var d struct {
				Tier string `json:"tier"`
			}
			if err := json.Unmarshal(in, &d); err != nil || d.Tier != got {
				t.Fatalf("%s: LookupString %q, encoding/json %q (%v)", in, got, d.Tier, err)
			}
		}
	})
}

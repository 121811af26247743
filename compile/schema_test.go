package compile

import (
	"math/rand"
	"testing"
)

// TestIDPatternsAgree: the byte tests that stand in for idRe and identRe
// accept exactly what the regular expressions accept.
func TestIDPatternsAgree(t *testing.T) {
	cases := []string{"", "a", "z", "A", "_", "0", "a0", "a_", "aZ", "Ab", "_a", "__", "a-b", "a.b", "a b", "a\n", "é", "aé",
		"n123", "node_1", "Node", "x\x00", "\xff", "a\u00e9b", "9a", "db_query__s"}
	r := rand.New(rand.NewSource(1))
	alphabet := []byte("azAZ09_-. \n\x00\x7f\xc3\xa9")
	for range 20_000 {
		b := make([]byte, r.Intn(6))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := isID(s), idRe.MatchString(s); got != want {
			t.Errorf("isID(%q) = %v, idRe says %v", s, got, want)
		}
		if got, want := isIdent(s), identRe.MatchString(s); got != want {
			t.Errorf("isIdent(%q) = %v, identRe says %v", s, got, want)
		}
		if matches(idRe, s) != idRe.MatchString(s) || matches(identRe, s) != identRe.MatchString(s) || matches(slugRe, s) != slugRe.MatchString(s) {
			t.Errorf("matches(…, %q) disagrees with the expression", s)
		}
	}
}

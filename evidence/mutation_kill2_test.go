package evidence

import (
	"strings"
	"testing"
)

// TestBackticksForgedNames: a report whose first byte is a backtick still
// has its names checked; an identifier may hold digits after its first
// letter; with no known name there is no "nearest" hint.
func TestBackticksForgedNames(t *testing.T) {
	n := NamesOf([]*Snapshot{nil, {ID: "Q1", Source: "sales", Columns: []string{"amount"}, Types: []string{TypeReal}}}, nil)
	for text, want := range map[string]int{
		"`amout` is up":          1, // a backtick at the very start
		"`amount` and `region2`": 1,
		"`sales.amount`":         0,
		"`2x` is code":           0, // not a name
	} {
		if got := n.Backticked(text); len(got) != want {
			t.Errorf("Backticked(%q) = %v, want %d unknown", text, got, want)
		}
	}
	if !isIdent("region2") || isIdent("2region") {
		t.Error("isIdent: digits are allowed after the first character only")
	}
	if got := nearest("x", nil); got != "" {
		t.Errorf("nearest with no names = %q", got)
	}
}

// TestDecodeSnapshotRowLongerThanTypes: a forged snapshot whose row has
// more numbers than columns is an error, never a crash.
func TestDecodeSnapshotRowLongerThanTypes(t *testing.T) {
	b := []byte(`{"id":"Q1","node":"q","tool":"sql","source":"s","sql":"select 1","columns":["a"],"types":["INTEGER"],"rows":[[1,2]],"truncated":false,"row_cap":10}`)
	if s, err := DecodeSnapshot(b); err == nil || !strings.Contains(err.Error(), "row 0") {
		t.Errorf("DecodeSnapshot = %v, %v", s, err)
	}
}

package evidence

import (
	"math"
	"strings"
	"testing"
)

// TestQuoteWrappedLines quotes text that a hit wraps across lines: a line
// break between two CJK characters (or full-width forms) is no space, any
// other is one; leading, trailing and repeated white space never counts.
// The pairs sit on the edges of the ranges that count as wide.
func TestQuoteWrappedLines(t *testing.T) {
	tests := []struct {
		hit, words string
		want       bool
	}{
		{"数据\n显示", "数据显示", true},
		{"数据\n显示", "数据 显示", true}, // the quotation is normalised alike
		{"data\nshows", "data shows", true},
		{"data\nshows", "datashows", false},
		{"数据\nshows", "数据shows", false},
		{"数据\nshows", "数据 shows", true},
		{"あ\nア", "あア", true},                     // Hiragana, Katakana
		{"한\n국", "한국", true},                     // Hangul
		{"。\n〿", "。〿", true},                     // CJK punctuation up to U+303F
		{"\uff01\n\uffef", "\uff01\uffef", true}, // full-width forms U+FF00–U+FFEF
		{"\uff00\n\uff00", "\uff00\uff00", true},
		{"\ufff0\n\ufff0", "\ufff0\ufff0", false}, // just past the full-width forms
		{"\u3040\n\u3040", "\u3040 \u3040", true}, // unassigned, just past CJK punctuation
		{"\u2e80\n\u2e80", "\u2e80\u2e80", true},  // first CJK radical
		{"  abc   def  ", "abc def", true},
		{"abc def", "  abc", true},
		{"abc def", "def  ", true},
		{"abc def", " \t\n", false},
		{"abc def", "", false},
		{"a b", "A b", false},
		{"\x00 a", "\x00a", false}, // a space after a NUL character still counts
	}
	for _, tt := range tests {
		if got := Quote(tt.hit, tt.words); got != tt.want {
			t.Errorf("Quote(%q, %q) = %v, want %v", tt.hit, tt.words, got, tt.want)
		}
	}
}

// TestDecodeSnapshotForged decodes snapshots edited as text: each must be
// refused with a message naming the snapshot, never half-read.
func TestDecodeSnapshotForged(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"fewer types than columns", `{"id":"Q1","columns":["a","b"],"types":["TEXT"],"rows":[]}`, "2 columns but 1 types"},
		{"number beyond float64 in a REAL column", `{"id":"Q1","columns":["a"],"types":["REAL"],"rows":[[1e400]]}`, "snapshot Q1: number 1e400"},
		{"number beyond float64 in a param", `{"id":"Q1","columns":["a"],"types":["TEXT"],"rows":[],"params":{"p":1e400}}`, "param p"},
		{"row too short", `{"id":"Q1","columns":["a","b"],"types":["TEXT","TEXT"],"rows":[["x"]]}`, "row 0 has 1 values for 2 columns"},
		{"object in a cell", `{"id":"Q1","columns":["a"],"types":["TEXT"],"rows":[[{"x":1}]]}`, `column "a" has a`},
	}
	for _, tt := range tests {
		s, err := DecodeSnapshot([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %+v, %v; want an error containing %q", tt.name, s, err, tt.want)
		}
	}
}

// TestValidateNonFiniteAndTypes calls Validate directly, as the verifier
// does on a decoded snapshot, on values canonical JSON cannot hold.
func TestValidateNonFiniteAndTypes(t *testing.T) {
	for name, mutate := range map[string]func(s *Snapshot){
		"nan":         func(s *Snapshot) { s.Rows[0][1] = math.NaN() },
		"inf":         func(s *Snapshot) { s.Rows[0][1] = math.Inf(-1) },
		"bytes":       func(s *Snapshot) { s.Rows[0][1] = []byte("x") },
		"types short": func(s *Snapshot) { s.Types = s.Types[:3] },
	} {
		s := sample()
		mutate(s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "Q1") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := sample().Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestColumnTypesWidest checks the order INTEGER < REAL < TEXT in both
// directions, and that false is stored as 0.
func TestColumnTypesWidest(t *testing.T) {
	rows := [][]any{{1.5, "x", int64(1), nil}, {"y", 2.5, 2.5, nil}}
	got := ColumnTypes(rows, 4)
	want := []string{TypeText, TypeText, TypeReal, TypeNull}
	for j := range want {
		if got[j] != want[j] {
			t.Fatalf("ColumnTypes = %v, want %v", got, want)
		}
	}
	if rows[0][2] != float64(1) {
		t.Errorf("an integer in a REAL column stays %T", rows[0][2])
	}
	if v, ok := Cell(false); !ok || v != int64(0) {
		t.Errorf("Cell(false) = %v", v)
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		if _, ok := Cell(x); ok {
			t.Errorf("Cell(%v) is accepted", x)
		}
	}
}

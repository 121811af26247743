package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diagsOf renders diagnostics as "line:col CODE" for compact comparison.
func diagsOf(src string) []string {
	_, l := Parse("s.eval.yml", []byte(src))
	out := make([]string, 0, len(l))
	for _, d := range l {
		out = append(out, fmt.Sprintf("%d:%d %s", d.Line, d.Col, d.Code))
	}
	return out
}

const okSuite = `eval: 1
name: demo
flow: flow.yml
variants:
  - name: a
  - name: b
    provider: script:x.yml
    repeats: 3
    judge: true
    price: {input_per_mtok: 3, output_per_mtok: 15}
questions:
  - id: q1
    inputs: {question: "How much?"}
    expect: {sql: "SELECT SUM(amount) FROM sales"}
    key_points: [mentions the total]
  - id: q2
    expect: {metric: gmv, card: weekly-gmv@2}
  - id: q3
    expect: {no_data: true}
  - id: q4
    expect: {asks_back: true}
`

func TestParseOK(t *testing.T) {
	s, l := Parse("s.eval.yml", []byte(okSuite))
	if s == nil || len(l) != 0 {
		t.Fatalf("Parse: %v", l)
	}
	if len(s.Variants) != 2 || s.Variants[0].Provider != "mock" || s.Variants[0].Repeats != 1 || s.Variants[1].Repeats != 3 || !s.Variants[1].Judge {
		t.Errorf("variants = %+v", s.Variants)
	}
	kinds := []string{KindSQL, KindMetric, KindNoData, KindAsksBack}
	for i, q := range s.Questions {
		if q.Expect.Kind != kinds[i] {
			t.Errorf("question %s kind %q, want %q", q.ID, q.Expect.Kind, kinds[i])
		}
	}
	if s.CardFor(&s.Questions[1]) != "weekly-gmv@2" {
		t.Errorf("CardFor = %q", s.CardFor(&s.Questions[1]))
	}
	if s.Questions[0].Expect.SQLPos.Line != 14 || s.Questions[0].Expect.SQLPos.Col != 19 {
		t.Errorf("SQLPos = %+v", s.Questions[0].Expect.SQLPos)
	}
	// The hash ignores formatting.
	h1, _, _ := s.Hash()
	s2, _ := Parse("other.eval.yml", []byte(strings.ReplaceAll(okSuite, "{sql: \"SELECT SUM(amount) FROM sales\"}", "\n      sql: 'SELECT SUM(amount) FROM sales'")))
	if s2 == nil {
		t.Fatal("reformatted suite does not parse")
	}
	if h2, _, _ := s2.Hash(); h1 != h2 {
		t.Error("reformatting changed the suite hash")
	}
}

func TestParseDefaultVariant(t *testing.T) {
	s, l := Parse("s.eval.yml", []byte("eval: 1\nflow: f.yml\nquestions:\n  - id: a\n    expect: {no_data: true}\n"))
	if s == nil {
		t.Fatal(l)
	}
	if len(s.Variants) != 1 || s.Variants[0].Name != "default" || s.Variants[0].Provider != "mock" {
		t.Errorf("variants = %+v", s.Variants)
	}
}

func TestParseErrors(t *testing.T) {
	head := "eval: 1\nflow: f.yml\n"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"literal scalar", head + "questions:\n  - id: a\n    expect: 42\n", []string{"5:13 E-EVAL-LITERAL"}},
		{"literal value key", head + "questions:\n  - id: a\n    expect: {value: 42}\n", []string{"5:14 E-EVAL-LITERAL"}},
		{"literal sql", head + "questions:\n  - id: a\n    expect: {sql: 1234.5}\n", []string{"5:19 E-EVAL-LITERAL"}},
		{"literal list", head + "questions:\n  - id: a\n    expect: [1, 2]\n", []string{"5:13 E-EVAL-LITERAL"}},
		{"literal string number", head + "questions:\n  - id: a\n    expect: \"1,234\"\n", []string{"5:13 E-EVAL-LITERAL"}},
		{"literal metric", head + "questions:\n  - id: a\n    expect: {metric: 12}\n", []string{"5:22 E-EVAL-LITERAL"}},
		{"two kinds", head + "questions:\n  - id: a\n    expect: {sql: 'SELECT 1', no_data: true}\n", []string{"5:13 E-EVAL-EXPECT"}},
		{"no kind", head + "questions:\n  - id: a\n    expect: {source: s}\n", []string{"5:22 E-EVAL-EXPECT"}},
		{"no_data false", head + "questions:\n  - id: a\n    expect: {no_data: false}\n", []string{"5:23 E-EVAL-EXPECT"}},
		{"unknown key", head + "questions:\n  - id: a\n    expekt: {no_data: true}\n", []string{"4:5 E-EVAL-REQUIRED", "5:5 E-EVAL-KEY"}},
		{"dup id", head + "questions:\n  - id: a\n    expect: {no_data: true}\n  - id: a\n    expect: {no_data: true}\n", []string{"6:9 E-EVAL-DUP"}},
		{"bad id", head + "questions:\n  - id: A B\n    expect: {no_data: true}\n", []string{"4:9 E-EVAL-ID"}},
		{"no questions", head, []string{"1:1 E-EVAL-EMPTY"}},
		{"empty questions", head + "questions: []\n", []string{"3:12 E-EVAL-EMPTY"}},
		{"version", "eval: 2\nflow: f.yml\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"1:7 E-EVAL-VERSION"}},
		{"no eval key", "flow: f.yml\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"1:1 E-EVAL-REQUIRED"}},
		{"no flow", "eval: 1\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"1:1 E-EVAL-REQUIRED"}},
		{"bad pin", head + "pin: abc\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"3:6 E-EVAL-PIN"}},
		{"bad card", head + "card: gmv\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"3:7 E-EVAL-CARD"}},
		{"bad provider", head + "variants:\n  - name: x\n    provider: gpt\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"5:15 E-EVAL-VARIANT"}},
		{"bad repeats", head + "variants:\n  - name: x\n    repeats: 0\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"5:14 E-EVAL-VARIANT"}},
		{"dup variant", head + "variants:\n  - name: x\n  - name: x\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"5:11 E-EVAL-DUP"}},
		{"type", head + "settings: {parallel: many}\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"3:22 E-EVAL-TYPE"}},
		{"yaml", "eval: 1\nflow: [\n", []string{"2:1 E-EVAL-YAML"}},
		{"empty file", "", []string{"1:1 E-EVAL-YAML"}},
		{"dup key", head + "flow: g.yml\nquestions:\n  - id: a\n    expect: {no_data: true}\n", []string{"3:1 E-EVAL-DUP"}},
		{"not mapping", "- 1\n", []string{"1:1 E-EVAL-TYPE"}},
		{"infinite input", head + "questions:\n  - id: a\n    inputs: {n: .inf}\n    expect: {no_data: true}\n", []string{"5:17 E-EVAL-TYPE"}},
		{"nan deep in an input", head + "questions:\n  - id: a\n    inputs: {o: {l: [1, .nan]}}\n    expect: {no_data: true}\n", []string{"5:17 E-EVAL-TYPE"}},
		{"input keyed by numbers", head + "questions:\n  - id: a\n    inputs: {o: {1: x}}\n    expect: {no_data: true}\n", []string{"5:17 E-EVAL-TYPE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diagsOf(tt.src)
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestLiteralHasFix(t *testing.T) {
	_, l := Parse("s.eval.yml", []byte("eval: 1\nflow: f.yml\nquestions:\n  - id: a\n    expect: 42\n"))
	if len(l) != 1 || !strings.Contains(l[0].Fix, "sql:") {
		t.Fatalf("want one literal diagnostic with an SQL fix, got %v", l)
	}
}

func TestReadFile(t *testing.T) {
	_, l := ReadFile(filepath.Join(t.TempDir(), "missing.eval.yml"))
	if len(l) != 1 || l[0].Code != CodeRead || l[0].Fix == "" {
		t.Errorf("missing file: %v", l)
	}
	p := filepath.Join(t.TempDir(), "ok.eval.yml")
	if err := os.WriteFile(p, []byte(okSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, l := ReadFile(p); s == nil || s.File != p {
		t.Errorf("ReadFile: %v", l)
	}
	if !IsSuiteFile("a/B.EVAL.yml") || !IsSuiteFile("x.eval.yaml") || IsSuiteFile("flow.yml") || IsSuiteFile("eval.yml") {
		t.Error("IsSuiteFile")
	}
}

package main

import (
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

const sample = `package p

import "errors"

const limit = 3

type pair [2]int

func f(a, b int, ok bool) (int, error) {
	if !ok {
		return 0, errors.New("not ok")
	}
	if a < b && b >= limit {
		a++
	}
	g()
	return a + b, nil
}

func g() { panic("x") }
`

// TestMutantsOfSample checks that each mutator fires where it should, that
// types are left alone, and that every mutant still parses.
func TestMutantsOfSample(t *testing.T) {
	ms, err := mutantsOf("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.describe())
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", m.apply([]byte(sample)), 0); err != nil {
			t.Errorf("%s does not parse: %v", m.describe(), err)
		}
	}
	for _, want := range []string{
		"const: 3 → 4",
		"if-negate: !ok → !(!ok)",
		"drop-not: ! → (nothing)",
		"return-nil: errors.New(\"not ok\") → nil",
		"boundary: < → <=",
		"negate: >= → <",
		"logical: && → ||",
		"incdec: ++ → --",
		"drop-call: g() → _ = 0",
		"arith: + → -",
		"if-false: a < b && b >= limit → false",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing mutant %q; have %q", want, got)
		}
	}
	for _, m := range ms {
		if m.was == "2" || m.was == `panic("x")` {
			t.Errorf("mutated a type or a panic: %s", m.describe())
		}
	}
}

// TestSampleIsReproducible checks that a seed names one sample.
func TestSampleIsReproducible(t *testing.T) {
	ms, err := mutantsOf("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := shuffled(ms, 1), shuffled(ms, 1), shuffled(ms, 2)
	if !slices.EqualFunc(a, b, func(x, y mutant) bool { return x == y }) {
		t.Error("the same seed gave two samples")
	}
	if slices.EqualFunc(a, c, func(x, y mutant) bool { return x == y }) {
		t.Error("two seeds gave the same sample")
	}
}

// TestFailedTests reads the top-level failures of go test output, the
// tests a kill is confirmed with.
func TestFailedTests(t *testing.T) {
	out := "=== RUN   TestA\n--- FAIL: TestA (0.01s)\n    --- FAIL: TestA/sub (0.00s)\n--- PASS: TestB (0.00s)\n--- FAIL: TestC (1.20s)\nFAIL\n"
	if got := failedTests(out); !slices.Equal(got, []string{"TestA", "TestC"}) {
		t.Fatalf("failedTests = %q", got)
	}
}

package eval

import (
	"bytes"
	"math"
	"testing"

	"github.com/agentlab/agentlab/canon"
)

// caseFromFuzz builds a case whose every field comes from the inputs, with
// nil and empty slices, omitted and present fields alike.
func caseFromFuzz(s1, s2 string, n int, f1, f2 float64, flags uint8) CaseResult {
	c := CaseResult{
		Question: s1, Variant: s2, Repeat: n, Kind: s2, Pass: flags&1 != 0, Status: s1, Tier: s2,
		Traceable: flags&2 != 0, Tokens: n * 7, CostUSD: f1, Millis: f2,
	}
	if flags&4 != 0 {
		c.Reason, c.Answer, c.ExpectedSQL, c.Run, c.Seal, c.Address = s1, s2, s1+s2, s2, s1, s2
	}
	if flags&8 != 0 {
		c.Expected, c.Missing = []float64{f1, f2}, []float64{f2}
	}
	switch flags >> 4 & 3 {
	case 1:
		c.Answered = []float64{}
	case 2:
		c.Answered = []float64{f1, f2, f1 * f2}
	}
	if flags&64 != 0 {
		c.AnswerSQL = []string{s1, s2}
		c.KeyPoints = []KeyPoint{{Point: s1, Verdict: s2}, {Point: s2}}
	}
	return c
}

// TestCaseCanonicalEqualsMarshal: the direct writer gives exactly what the
// generic canonical encoder gives, on every shape of case.
func TestCaseCanonicalEqualsMarshal(t *testing.T) {
	strs := []string{"", "q1", "<a & b>", "naïve ✓", "tab\tquote\"back\\", "\x00\x1f", "bad \xff utf-8", "\u2028\u2029"}
	floats := []float64{0, math.Copysign(0, -1), 1, -2.5, 0.1, 1e21, 1e-7, 123456789012345678, math.MaxFloat64}
	for i, s1 := range strs {
		for j, f := range floats {
			for flags := 0; flags < 128; flags += 3 {
				c := caseFromFuzz(s1, strs[(i+j)%len(strs)], i*j-5, f, floats[(j+flags)%len(floats)], uint8(flags))
				checkCaseCanonical(t, c)
			}
		}
	}
	bad := CaseResult{CostUSD: math.NaN()}
	if _, err := bad.appendCanonical(nil); err == nil {
		t.Error("a NaN cost must be refused, as canon.Marshal refuses it")
	}
}

func checkCaseCanonical(t *testing.T, c CaseResult) {
	t.Helper()
	want, werr := canon.Marshal(c)
	got, gerr := c.appendCanonical(nil)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("errors differ: canon.Marshal %v, appendCanonical %v for %+v", werr, gerr, c)
	}
	if werr == nil && !bytes.Equal(got, want) {
		t.Fatalf("appendCanonical differs from canon.Marshal:\n got %s\nwant %s", got, want)
	}
}

func FuzzCaseCanonicalEqualsMarshal(f *testing.F) {
	f.Add("q", "v", 1, 0.5, 12.0, uint8(0x7f))
	f.Add("", "<&>", -3, math.Inf(1), 0.0, uint8(0))
	f.Fuzz(func(t *testing.T, s1, s2 string, n int, f1, f2 float64, flags uint8) {
		checkCaseCanonical(t, caseFromFuzz(s1, s2, n, f1, f2, flags))
	})
}

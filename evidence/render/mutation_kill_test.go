package render

import (
	"strings"
	"testing"
)

// TestCalcForgedFormulas evaluates formulas a forged report could carry:
// nesting past the limit (through lists and through calls), cut-off
// argument lists, and functions given the wrong number of arguments must
// be errors, never a number.
func TestCalcForgedFormulas(t *testing.T) {
	for _, f := range []string{
		strings.Repeat("[", 65) + "1" + strings.Repeat("]", 65),
		strings.Repeat("abs(", 65) + "1" + strings.Repeat(")", 65),
		"sum(1,",
		"sum(1 2)",
		"round(1, 2, 3)",
		"round()",
		"1e",
		"1e+",
	} {
		if v, err := Calc(f); err == nil {
			t.Errorf("Calc(%.40q) = %v, want an error", f, v)
		}
	}
	for f, want := range map[string]float64{
		strings.Repeat("[", 10) + "1" + strings.Repeat("]", 10) + " * 2": 0, // a list is not a number
		"1e+2":           100,
		"1E-2 * 100":     1,
		"round(2.5)":     3,
		"round(1.25, 1)": 1.3,
		"sum([1, 2], 3)": 6,
	} {
		v, err := Calc(f)
		if want == 0 {
			if err == nil {
				t.Errorf("Calc(%q) = %v, want an error", f, v)
			}
			continue
		}
		if err != nil || v != want {
			t.Errorf("Calc(%q) = %v, %v; want %v", f, v, err, want)
		}
	}
}

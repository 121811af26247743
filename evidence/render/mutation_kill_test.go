package render

import (
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
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

// TestBoundaryUTF8 checks where a quotation may start or end in text: never
// inside a multi-byte character.
func TestBoundaryUTF8(t *testing.T) {
	s := "aé"
	for i, want := range []bool{true, true, false, true} {
		if got := boundary(s, i); got != want {
			t.Errorf("boundary(%q, %d) = %v, want %v", s, i, got, want)
		}
	}
	if !boundary("", 0) {
		t.Error("the start of empty text is a boundary")
	}
}

// TestFormatMetricWithoutValue: a metric without a value is shown as n/a
// and reported as not formatted.
func TestFormatMetricWithoutValue(t *testing.T) {
	if s, ok := FormatMetric(nil, ""); ok || s != "n/a" {
		t.Errorf("FormatMetric(nil) = %q, %v", s, ok)
	}
}

// TestReportEventsStopAtTheSeal appends an evidence event after
// run.finished, where no seal covers it: the report must not read it.
func TestReportEventsStopAtTheSeal(t *testing.T) {
	var evs []chain.Event
	var prev *chain.Event
	for i, typ := range []string{chain.TypeRunStarted, chain.TypeRunFinished, TypeEvidenceAdded} {
		e, err := chain.NewEvent(prev, "r", int64(i+1), time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), typ, "", map[string]any{"i": i})
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
		prev = &evs[len(evs)-1]
	}
	got := ReportEvents(evs)
	if len(got) != 2 || got[1].Type != chain.TypeRunFinished {
		t.Fatalf("ReportEvents kept %d events", len(got))
	}
	if got := ReportEvents(evs[:1]); len(got) != 1 {
		t.Fatalf("an unsealed log: kept %d events", len(got))
	}
}

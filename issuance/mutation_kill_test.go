package issuance

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReadTextCutShort ends a narrative in the middle of a form the reader
// looks ahead into (a month name, a week, an ordinal, a time, a version, a
// fraction, a Chinese percent): it must not read past the end.
func TestReadTextCutShort(t *testing.T) {
	for _, s := range []string{
		"sales rose in Nov ", "in Nov. ", "release 1.2.3.", "2026-W", "item #", "at 14:3", "release 1.2.", "1/", "百分之3.",
		"共3", "数量是三", "增长了", "Q", "FY2",
	} {
		_ = Read(s) // a panic fails the test
		_ = Read(s + "\n")
	}
}

// TestReadForgedEdges pins readings a writer of a narrative could lean on
// to slip a number past the checker or to make a count out of nothing.
func TestReadForgedEdges(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"库存为零", ""},                    // 零 alone is not a count
		{"零点五", "零点五=0.5±0.05"},         // 零点五 is
		{"0/5", "0=0±0.5 | 5=5±0.5"},    // no fraction with a zero numerator
		{"万分之三", "万分之三=0.0003±0.00005"}, // per ten thousand
		{"Q3 2026", "Q3!quarter | 2026!date"},
		{"#3 2026", "#3!ordinal | 2026=2026±0.5"}, // only a date or quarter takes the year along
		{"US1.2M", "1.2M=1200000±50000"},          // a currency code glued to the amount
		{"HK5M", "5M=5000000±500000"},
		{"EUR5M", "5M=5000000±500000"},
		{"at 14:305", "14=14±0.5 | 305=305±0.5"}, // not a time: three digits after the colon
		{"at 14:30", "14:30!date"},
		{"2026-Wx", "2026=2026±0.5"}, // not a week: no digit after W
		{"2026-W5", "2026-W5!date"},
	} {
		if got := render(Read(tt.in)); got != tt.want {
			t.Errorf("Read(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestReadEveryCurrencyCode glues each currency code to an amount: the
// amount is read whichever code is used. The list is written out so that a
// code dropped from the reader fails.
func TestReadEveryCurrencyCode(t *testing.T) {
	for _, code := range []string{"USD", "US", "RMB", "CNY", "EUR", "GBP", "HKD", "HK", "JPY", "AUD", "CAD", "SGD", "CHF", "KRW"} {
		if got := render(Read("paid " + code + "5M")); got != "5M=5000000±500000" {
			t.Errorf("%s5M: %q", code, got)
		}
	}
}

// TestCheckPerMilleMetric matches "5‰" against a metric of 5 in ‰.
func TestCheckPerMilleMetric(t *testing.T) {
	r := Check("the rate was 5‰", []Metric{{Name: "rate", Value: 5, Unit: "‰"}}, Options{})
	if len(r.Numbers) != 1 || r.Numbers[0].Matched == nil || *r.Numbers[0].Matched != "rate" || r.Tier != TierFormal {
		t.Fatalf("got %+v", r)
	}
}

// TestCheckEmptyNarrativeJSON checks that a narrative without numbers has
// an empty list, not null, in the JSON the CLI prints.
func TestCheckEmptyNarrativeJSON(t *testing.T) {
	b, err := json.Marshal(Check("no figures here", nil, Options{}))
	if err != nil || !strings.Contains(string(b), `"numbers":[]`) {
		t.Fatalf("%s, %v", b, err)
	}
}

package issuance

import "testing"

// TestReadPinnedEdges pins readings at the edges a writer of a narrative
// could lean on: the decimals a section number may have, a fraction whose
// denominator is a digit sequence, "per" that is not "per cent", a table
// cell holding an escaped "|", a text ending in a number word or after a
// section number's dot, a month that does not exist (十三月), and number
// words glued to a hyphen or a digit.
func TestReadPinnedEdges(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Section 3.125 says", "Section 3.125!section"},  // three decimals: still structure
		{"Section 3.1255 says", "3.1255=3.1255±0.00005"}, // four: a number
		{"三分之一二", "一二!vague"},                            // 一二 is a sequence, not a denominator
		{"三分之二", "三分之二=0.6666666666666666±0.005"},
		{"up 5 per week.", "5=5±0.5"}, // "per" alone is no percent
		{"up 5 per cent", "5 per cent=0.05±0.005"},
		{"5 per", "5=5±0.5"},
		{"| a \\| 1 | 2 |\n|---|---|\n| 7 | 8 |\n", "1=1±0.5 | 2!enumerator | 7=7±0.5 | 8=8±0.5"},
		{"we sold two", "two=2±0.5"},
		{"sold one", "one!vague"},
		{"see Section 3.", "Section 3!section"},
		{"Table 2.", "Table 2!section"},
		{"twenty-five", "twenty-five=25±0.5"},
		{"3-four", "3=3±0.5"},
		{"x-five", ""},
		{"2five", ""},
		{".5 and a.5", ".5=0.5±0.05 | 5=5±0.5"},
		{"x.5", "5=5±0.5"},
		{"February 30", "February 30!date"},
		{"December 5", "December 5!date"},
		{"the second half of", ""},
		{"two-half", ""},
		{"half-", ""},
		{"nearly half", "nearly half=0.5±0.05"},
		{"half of the stores", "half=0.5±0.005"},
		{"十三月", "十三=13±0.5"}, // no thirteenth month: a count
		{"十二月", "十二月!date"},
		{"2026年十三月", "2026年!date | 十三=13±0.5"}, // after a year too
		{"2026年十二月5日", "2026年十二月5日!date"},
	} {
		if got := render(Read(tt.in)); got != tt.want {
			t.Errorf("Read(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

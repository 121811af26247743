package retrieve

import "testing"

func TestQuote(t *testing.T) {
	const hit = "Customers may request a refund within 30 days of purchase. Refunds are paid\nto the original  payment method."
	const zh = "客户可以在购买后三十天内申请\n退款。GMV 增长 12%。"
	tests := []struct {
		name, hit, words string
		want             bool
	}{
		{"exact", hit, "a refund within 30 days", true},
		{"across a line break", hit, "are paid to the original payment method", true},
		{"extra spaces in quote", hit, "  refund   within\t30 days ", true},
		{"whole text", hit, hit, true},
		{"case differs", hit, "A Refund within 30 days", false},
		{"word changed", hit, "a refund within 31 days", false},
		{"punctuation differs", hit, "purchase, Refunds", false},
		{"space removed between words", hit, "refundwithin", false},
		{"paraphrase", hit, "refunds within a month", false},
		{"empty quote", hit, "", false},
		{"blank quote", hit, " \n ", false},
		{"chinese exact", zh, "三十天内申请", true},
		{"chinese across a line break", zh, "申请退款", true},
		{"chinese with a space typed", zh, "申请 退款", true},
		{"space kept next to latin", zh, "GMV 增长", true},
		{"latin space not dropped", zh, "GMV增长", false},
		{"chinese changed", zh, "三十日内申请", false},
		{"nbsp is white space", "14\u00a0days", "14 days", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.hit, tt.words); got != tt.want {
				t.Errorf("Quote(%q, %q) = %v, want %v", tt.hit, tt.words, got, tt.want)
			}
		})
	}
}

package retrieve

import (
	"reflect"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"GMV_total 3.5% x2", []string{"gmv", "total", "3", "5", "x2"}},
		{"ＡＢＣ１２３", []string{"abc123"}},
		{"Café naïve ÉTÉ", []string{"café", "naïve", "été"}},
		{"销售额", []string{"销售", "售额"}},
		{"税", []string{"税"}},
		{"GMV增长了12%", []string{"gmv", "增长", "长了", "12"}},
		{"退款，配送", []string{"退款", "配送"}},
		{"カタカナ", []string{"カタ", "タカ", "カナ"}},
		// Stemming: English word forms meet; identifiers, short words,
		// stop words and other scripts stay as written.
		{"refunded refunds refunding Refund", []string{"refund", "refund", "refund", "refund"}},
		// Not every pair meets (the embedding's n-grams join these).
		{"deliveries delivering", []string{"deliveri", "deliv"}},
		{"INV-7781 ERR4012 was", []string{"inv", "7781", "err4012", "was"}},
		{"because during", []string{"because", "during"}},
		{"Rückerstattung reembolso", []string{"rückerstattung", "reembolso"}},
		{"   ", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

package sqlguard

import "testing"

func TestQuoteIdent(t *testing.T) {
	cases := []struct{ in, want string }{
		{"orders", `"orders"`},
		{"", `""`},
		{"select", `"select"`},
		{`a"b`, `"a""b"`},
		{`""`, `""""""`},
		{"年份", `"年份"`},
	}
	for _, c := range cases {
		if got := QuoteIdent(c.in); got != c.want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

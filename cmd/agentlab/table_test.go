package main

import (
	"strings"
	"testing"
)

func TestTableASCII(t *testing.T) {
	var b strings.Builder
	tb := newTable(&b)
	tb.Header("node", "type", "status_x", "time", "tokens", "cost")
	tb.Append("a", "llm", "ok (restored)", "1.2s", "10/20", "$0.0010")
	tb.Append("中文节点", "transform", "", "", "", "")
	tb.Append("b\tc", "x|y", "multi\nline", "é", "ｆｕｌｌ", "😀x")
	tb.Append("1,172,100", "  lead", "trail  ", "", "", "")
	tb.Footer("total", "", "", "", "10/20", "$0.0010")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := `+-----------+-----------+---------------+------+----------+---------+
|   NODE    |   TYPE    |   STATUS X    | TIME |  TOKENS  |  COST   |
+-----------+-----------+---------------+------+----------+---------+
| a         | llm       | ok (restored) | 1.2s | 10/20    | $0.0010 |
| 中文节点  | transform |               |      |          |         |
| b    c    | x|y       | multi         | é    | ｆｕｌｌ | 😀x     |
|           |           | line          |      |          |         |
| 1,172,100 | lead      | trail         |      |          |         |
+-----------+-----------+---------------+------+----------+---------+
|     total |           |               |      |    10/20 | $0.0010 |
+-----------+-----------+---------------+------+----------+---------+
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTableBox(t *testing.T) {
	var b strings.Builder
	tb := newTable(&b)
	tb.box = true
	tb.Header("run", "status")
	tb.Append("r1", "sealed")
	tb.Append("한국어", "e\u0301") // hangul is wide, a combining accent takes no column
	tb.Footer("", "1")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "┌────────┬────────┐\n" +
		"│  RUN   │ STATUS │\n" +
		"├────────┼────────┤\n" +
		"│ r1     │ sealed │\n" +
		"│ 한국어 │ e\u0301      │\n" +
		"├────────┼────────┤\n" +
		"│        │      1 │\n" +
		"└────────┴────────┘\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDisplayWidth(t *testing.T) {
	for s, w := range map[string]int{
		"":         0,
		"abc":      3,
		"日本語":      6,
		"ｆｕｌｌ":     8,
		"e\u0301":  1,
		"a\u200db": 2,
		"❤\ufe0f":  1,
		"😀":        2,
		"\x1b[0m":  3,
		"Ελληνικά": 8,
	} {
		if got := displayWidth(s); got != w {
			t.Errorf("displayWidth(%q) = %d, want %d", s, got, w)
		}
	}
}

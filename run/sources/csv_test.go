package sources

import (
	"os"
	"reflect"
	"testing"
)

func TestParseCSVInference(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		types []string
		rows  [][]any
	}{
		{"integers", "a,b\n1,-2\n+3,0\n", []string{"INTEGER", "INTEGER"}, [][]any{{int64(1), int64(-2)}, {int64(3), int64(0)}}},
		{"reals win over integers", "a\n1\n2.5\n1e3\n", []string{"REAL"}, [][]any{{1.0}, {2.5}, {1000.0}}},
		{"leading zero is text", "zip\n01234\n10001\n", []string{"TEXT"}, [][]any{{"01234"}, {"10001"}}},
		{"empty and blank cells are NULL", "a,b\n1,\n , x\n", []string{"INTEGER", "TEXT"}, [][]any{{int64(1), nil}, {nil, " x"}}},
		{"padded numbers", "a\n 12 \n", []string{"INTEGER"}, [][]any{{int64(12)}}},
		{"all empty column is TEXT", "a,b\n1,\n2,\n", []string{"INTEGER", "TEXT"}, [][]any{{int64(1), nil}, {int64(2), nil}}},
		{"thousands separator is text", "a\n\"1,234\"\n", []string{"TEXT"}, [][]any{{"1,234"}}},
		{"hex, inf and nan are text", "a,b,c\n0x10,inf,NaN\n", []string{"TEXT", "TEXT", "TEXT"}, [][]any{{"0x10", "inf", "NaN"}}},
		{"int64 overflow is real", "a\n99999999999999999999\n", []string{"REAL"}, [][]any{{1e20}}},
		{"quoted fields", "a,b\n\"x, y\",\"say \"\"hi\"\"\"\n\"two\nlines\",2\n", []string{"TEXT", "INTEGER"}, [][]any{{"x, y", int64(0)}, {"two\nlines", int64(2)}}},
		{"crlf and bom", "\xef\xbb\xbfa,b\r\n1,x\r\n", []string{"INTEGER", "TEXT"}, [][]any{{int64(1), "x"}}},
		{"header only", "a,b\n", []string{"TEXT", "TEXT"}, [][]any{}},
		{"header names trimmed", " a , b\n1,2\n", []string{"INTEGER", "INTEGER"}, [][]any{{int64(1), int64(2)}}},
		{"unicode", "城市,金额\n北京,1.5\n", []string{"TEXT", "REAL"}, [][]any{{"北京", 1.5}}},
	}
	// Fix the one case whose expected row is easier to write here.
	cases[9].rows[0][1] = "say \"hi\""
	cases[9].types[1] = "TEXT"
	cases[9].rows[1][1] = "2"
	for _, c := range cases {
		tb, d := parseCSV("f.csv", []byte(c.data))
		if d != nil {
			t.Errorf("%s: unexpected error %v", c.name, d)
			continue
		}
		if !reflect.DeepEqual(tb.Types, c.types) {
			t.Errorf("%s: types %v, want %v", c.name, tb.Types, c.types)
		}
		if len(tb.Rows) == 0 && len(c.rows) == 0 {
			continue
		}
		if !reflect.DeepEqual(tb.Rows, c.rows) {
			t.Errorf("%s: rows %#v, want %#v", c.name, tb.Rows, c.rows)
		}
	}
}

func TestParseCSVErrors(t *testing.T) {
	cases := []struct {
		name      string
		data      string
		code      string
		line, col int
	}{
		{"empty file", "", CodeEmpty, 1, 1},
		{"only a bom", "\xef\xbb\xbf", CodeEmpty, 1, 1},
		{"empty header name", "a,,c\n1,2,3\n", CodeHeader, 1, 3},
		{"blank header name", "a,  \n1,2\n", CodeHeader, 1, 3},
		{"duplicate header", "id,name,ID\n1,2,3\n", CodeDupCol, 1, 9},
		{"data as header", "1,2.5,3\n4,5,6\n", CodeHeader, 1, 1},
		{"too many fields", "a,b\n1,2\n3,4,5\n", CodeRagged, 3, 5},
		{"too few fields", "a,b,c\n1,2,3\n4,5\n", CodeRagged, 3, 4},
		{"ragged after multi-line field", "a,b\n\"x\ny\",1\n2\n", CodeRagged, 4, 2},
		{"bare quote", "a,b\n1,x\"y\n", CodeQuote, 2, 4},
		{"unclosed quote", "a,b\n1,\"xy\n2,3\n", CodeQuote, 3, 5},
		{"gbk bytes", "city,v\nbeijing,1\n\xb1\xb1\xbe\xa9,2\n", CodeEncoding, 3, 1},
		{"invalid byte mid-line", "a\nx\xffy\n", CodeEncoding, 2, 2},
		{"utf-8 before the bad byte counts as one column each", "a\n北京\xff\n", CodeEncoding, 2, 3},
		{"nul byte", "a\nx\x00\n", CodeEncoding, 2, 2},
	}
	for _, c := range cases {
		_, d := parseCSV("f.csv", []byte(c.data))
		if d == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if d.Code != c.code || d.Line != c.line || d.Col != c.col || d.File != "f.csv" || d.Fix == "" || d.Message == "" {
			t.Errorf("%s: got %s:%d:%d %s %q (fix %q), want %s at %d:%d", c.name, d.File, d.Line, d.Col, d.Code, d.Message, d.Fix, c.code, c.line, c.col)
		}
	}
}

func TestParseCSVFiles(t *testing.T) {
	b, err := os.ReadFile("testdata/bom.csv")
	if err != nil {
		t.Fatal(err)
	}
	tb, d := parseCSV("bom.csv", b)
	if d != nil {
		t.Fatal(d)
	}
	if tb.Columns[0] != "name" || tb.Rows[0][0] != "北京" || tb.Types[1] != "INTEGER" {
		t.Fatalf("bom.csv parsed as %+v", tb)
	}
	b, _ = os.ReadFile("testdata/gbk.csv")
	if _, d := parseCSV("gbk.csv", b); d == nil || d.Code != CodeEncoding || d.Line != 3 {
		t.Fatalf("gbk.csv: %v", d)
	}
}

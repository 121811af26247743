package sources

import (
	"strings"
	"testing"
)

// FuzzCSV checks that any byte sequence either parses into a well-formed
// table or is refused with a positioned, coded diagnostic, and never panics.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "a\n\"x\ny\"\n", "\xef\xbb\xbfa,b\r\n1,\r\n", "a,a\n", "a,b\n1\n", "1,2\n", "a\n\xff\n",
		"a\n007\n1e5\n", "a,b\n\"unclosed\n", "a,b\nx\"y,1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, d := parseCSV("f.csv", data)
		if d != nil {
			if tb != nil || d.Code == "" || d.Line < 1 || d.Col < 1 || d.Message == "" || d.Fix == "" || d.File != "f.csv" {
				t.Fatalf("bad diagnostic %+v", d)
			}
			return
		}
		if len(tb.Columns) == 0 || len(tb.Types) != len(tb.Columns) {
			t.Fatalf("table without columns or types: %+v", tb)
		}
		seen := map[string]bool{}
		for _, c := range tb.Columns {
			if c == "" || seen[strings.ToLower(c)] {
				t.Fatalf("bad column name %q in %v", c, tb.Columns)
			}
			seen[strings.ToLower(c)] = true
		}
		for _, r := range tb.Rows {
			if len(r) != len(tb.Columns) {
				t.Fatalf("ragged row %v", r)
			}
			for j, v := range r {
				ok := v == nil
				switch tb.Types[j] {
				case "INTEGER":
					_, is := v.(int64)
					ok = ok || is
				case "REAL":
					_, is := v.(float64)
					ok = ok || is
				case "TEXT":
					_, is := v.(string)
					ok = ok || is
				}
				if !ok {
					t.Fatalf("value %#v in %s column %q", v, tb.Types[j], tb.Columns[j])
				}
			}
		}
	})
}

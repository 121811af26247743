package marker

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseMarkers(t *testing.T) {
	cases := []struct {
		in   string
		want Marker
	}{
		{"[[m:gmv]]", Marker{Kind: Metric, Name: "gmv"}},
		{"[[m:gmv|万]]", Marker{Kind: Metric, Name: "gmv", Unit: "万"}},
		{"[[m: wow |%]]", Marker{Kind: Metric, Name: "wow", Unit: "%"}},
		{"[[i:week]]", Marker{Kind: Input, Name: "week"}},
		{"[[v:Q1.r0.gmv]]", Marker{Kind: Value, Snapshot: "Q1", Row: 0, Col: "gmv"}},
		{"[[v:Q12.r7.total amount]]", Marker{Kind: Value, Snapshot: "Q12", Row: 7, Col: "total amount"}},
		{"[[table:Q1 cols=region,amount rows=0-4]]", Marker{Kind: Table, Snapshot: "Q1", Cols: []string{"region", "amount"}, RowFrom: 0, RowTo: 4}},
		{"[[table:Q2]]", Marker{Kind: Table, Snapshot: "Q2", RowTo: -1}},
		{"[[table:Q2 rows=3]]", Marker{Kind: Table, Snapshot: "Q2", RowFrom: 3, RowTo: 3}},
		{"[[t:orders]]", Marker{Kind: TableRef, Name: "orders"}},
		{"[[c:orders.week]]", Marker{Kind: Column, Name: "orders.week"}},
		{"[[q:K1|exact words, here]]", Marker{Kind: Quote, Snapshot: "K1", Words: "exact words, here"}},
		{"[[see:m:gmv,Q1]]", Marker{Kind: See, Grounds: []string{"m:gmv", "Q1"}}},
	}
	for _, c := range cases {
		segs, errs := Parse("before " + c.in + " after")
		if len(errs) != 0 {
			t.Errorf("%s: unexpected errors %v", c.in, errs)
			continue
		}
		if len(segs) != 3 || segs[1].Marker == nil {
			t.Errorf("%s: want text, marker, text; got %+v", c.in, segs)
			continue
		}
		m := *segs[1].Marker
		if m.Start != 7 || m.End != 7+len(c.in) || m.Raw != c.in {
			t.Errorf("%s: span %d-%d raw %q", c.in, m.Start, m.End, m.Raw)
		}
		m.Start, m.End, m.Raw = 0, 0, ""
		if m.Kind != c.want.Kind || m.Name != c.want.Name || m.Unit != c.want.Unit || m.Snapshot != c.want.Snapshot ||
			m.Row != c.want.Row || m.Col != c.want.Col || strings.Join(m.Cols, ",") != strings.Join(c.want.Cols, ",") ||
			m.RowFrom != c.want.RowFrom || m.RowTo != c.want.RowTo || m.Words != c.want.Words ||
			strings.Join(m.Grounds, ",") != strings.Join(c.want.Grounds, ",") {
			t.Errorf("%s: got %+v, want %+v", c.in, m, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"[[gmv]]", "kind prefix"},
		{"[[x:gmv]]", "unknown marker kind"},
		{"[[m:]]", "not a name"},
		{"[[m:gmv|furlongs]]", "unknown display unit"},
		{"[[v:Q1.gmv]]", "v:Q1.r0.column"},
		{"[[v:K1.r0.gmv]]", "v:Q1.r0.column"},
		{"[[v:Q1.rx.gmv]]", "row"},
		{"[[v:Q0.r0.gmv]]", "v:Q1.r0.column"},
		{"[[table:orders]]", "snapshot id"},
		{"[[table:Q1 rows=4-1]]", "range"},
		{"[[table:Q1 order=asc]]", "unknown table option"},
		{"[[c:week]]", "c:table.column"},
		{"[[q:K1]]", "q:K1|exact words"},
		{"[[q:K1|  ]]", "no words"},
		{"[[see:]]", "no grounds"},
		{"[[m:gmv", "not closed"},
		{"[[m:gmv [[m:wow]]", "not closed"},
	}
	for _, c := range cases {
		_, errs := Parse(c.in)
		if len(errs) == 0 || !strings.Contains(errs[0].Message, c.want) {
			t.Errorf("%s: errors %v, want one containing %q", c.in, errs, c.want)
		}
	}
}

func TestUnclosedKeepsLaterMarker(t *testing.T) {
	segs, errs := Parse("[[m:gmv and [[m:wow]] ok")
	if len(errs) != 1 {
		t.Fatalf("errors: %v", errs)
	}
	var found bool
	for _, s := range segs {
		if s.Marker != nil && s.Marker.Name == "wow" {
			found = true
		}
	}
	if !found {
		t.Errorf("the closed marker after an unclosed one must still parse: %+v", segs)
	}
}

// FuzzParse checks that parsing never panics, segments cover the text
// exactly, and offsets stay in range.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "[[m:gmv]]", "a [[v:Q1.r0.x]] b", "[[table:Q1 cols=a rows=0-2]]", "[[q:K1|x]]", "[[", "]]", "[[[[m:x]]]]", "增长[[m:gmv|万]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, errs := Parse(s)
		var b strings.Builder
		for _, seg := range segs {
			if seg.Marker != nil {
				b.WriteString(seg.Marker.Raw)
			} else {
				b.WriteString(seg.Text)
			}
		}
		if b.String() != s {
			t.Fatalf("segments do not cover the text: %q vs %q", b.String(), s)
		}
		for _, e := range errs {
			if e.Start < 0 || e.End > len(s) || e.Start > e.End {
				t.Fatalf("error span %d-%d out of range", e.Start, e.End)
			}
			if utf8.ValidString(s) && !utf8.ValidString(s[e.Start:e.End]) {
				t.Fatalf("error span splits a rune")
			}
		}
	})
}

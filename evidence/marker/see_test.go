package marker

import (
	"strings"
	"testing"
)

// shown joins what a filler shows of segs: text as is, see markers
// dropped, other markers as written.
func shown(segs []Segment) string {
	var b strings.Builder
	for _, sg := range segs {
		switch {
		case sg.Marker == nil:
			b.WriteString(sg.Text)
		case sg.Marker.Kind != See:
			b.WriteString(sg.Marker.Raw)
		}
	}
	return b.String()
}

func TestTrimSee(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"before full stop", "GMV rose [[see:m:gmv]].", "GMV rose."},
		{"before comma", "GMV rose [[see:m:gmv]], costs fell", "GMV rose, costs fell"},
		{"every ASCII closer", "a [[see:Q1]]; b [[see:Q1]]: c [[see:Q1]]! d [[see:Q1]]? (e [[see:Q1]])", "a; b: c! d? (e)"},
		{"CJK full stop", "销售额增长 [[see:m:gmv]]。", "销售额增长。"},
		{"every CJK closer", "甲 [[see:Q1]]，乙 [[see:Q1]]；丙 [[see:Q1]]：丁 [[see:Q1]]！戊 [[see:Q1]]？", "甲，乙；丙：丁！戊？"},
		{"between words", "GMV rose [[see:m:gmv]] sharply", "GMV rose sharply"},
		{"between words, no space before", "GMV rose[[see:m:gmv]] sharply", "GMV rose sharply"},
		{"between words, no space after", "GMV rose [[see:m:gmv]]sharply", "GMV rose sharply"},
		{"tabs and several spaces", "GMV rose \t [[see:m:gmv]].", "GMV rose."},
		{"end of text", "GMV rose [[see:m:gmv]]", "GMV rose"},
		{"end of line", "GMV rose [[see:m:gmv]]\nCosts fell.", "GMV rose\nCosts fell."},
		{"CRLF line end", "GMV rose [[see:m:gmv]]\r\nCosts fell.", "GMV rose\r\nCosts fell."},
		{"line break before is kept", "GMV rose\n[[see:m:gmv]] sharply", "GMV rose\n sharply"},
		{"adjacent see markers", "GMV rose [[see:m:gmv]][[see:Q1]].", "GMV rose."},
		{"see markers apart", "GMV rose [[see:m:gmv]] [[see:Q1]].", "GMV rose."},
		{"see markers apart between words", "GMV rose [[see:m:gmv]] [[see:Q1]] sharply", "GMV rose sharply"},
		{"before a rendered marker", "GMV rose [[see:Q1]][[m:gmv]].", "GMV rose [[m:gmv]]."},
		{"after a rendered marker", "GMV was [[m:gmv]] [[see:Q1]].", "GMV was [[m:gmv]]."},
		{"before a word", "see [[see:Q1]]below", "see below"},
		{"before a bad marker", "GMV rose [[see:Q1]][[x:y]]", "GMV rose [[x:y]]"},
		{"before other punctuation", "GMV rose [[see:Q1]]-ish", "GMV rose -ish"},
		{"only a see marker", "[[see:Q1]]", ""},
		{"space then see marker only", "  [[see:Q1]]", ""},
		{"no see marker", "GMV rose .", "GMV rose ."},
		{"spaced kind", "GMV rose [[ see : Q1 ]].", "GMV rose."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			segs, _ := Parse(tc.src)
			before := append([]Segment(nil), segs...)
			got := TrimSee(segs)
			if s := shown(got); s != tc.want {
				t.Errorf("TrimSee(%q) shows %q, want %q", tc.src, s, tc.want)
			}
			for i := range segs {
				if segs[i] != before[i] {
					t.Fatalf("TrimSee changed its argument at %d", i)
				}
			}
			for _, sg := range got {
				if sg.Marker != nil {
					if tc.src[sg.Marker.Start:sg.Marker.End] != sg.Marker.Raw {
						t.Errorf("marker %q moved", sg.Marker.Raw)
					}
					continue
				}
				if sg.Text == "" || tc.src[sg.Start:sg.Start+len(sg.Text)] != sg.Text {
					t.Errorf("segment %q at %d is not the source there", sg.Text, sg.Start)
				}
			}
		})
	}
}

// FuzzTrimSee checks on any text that TrimSee only ever drops spaces and
// tabs, and only right before a see marker.
func FuzzTrimSee(f *testing.F) {
	for _, s := range []string{"GMV rose [[see:m:gmv]].", "a [[see:Q1]] [[see:Q2]] b", "销售额增长 [[see:m:gmv]]。", " [[see:x]]\t[[m:y]] ", "[[see:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, _ := Parse(s)
		got := TrimSee(segs)
		j := 0
		for _, sg := range segs {
			if sg.Marker != nil {
				continue
			}
			for j < len(got) && got[j].Marker != nil {
				j++
			}
			if j < len(got) && got[j].Start == sg.Start {
				if !strings.HasPrefix(sg.Text, got[j].Text) || strings.Trim(sg.Text[len(got[j].Text):], " \t") != "" {
					t.Fatalf("segment %q became %q", sg.Text, got[j].Text)
				}
				j++
			} else if strings.Trim(sg.Text, " \t") != "" {
				t.Fatalf("segment %q was dropped", sg.Text)
			}
		}
	})
}

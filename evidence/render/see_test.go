package render

import (
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestSeeMarkerSpaces: a dropped see marker leaves no space before
// punctuation and exactly one between words; every shown text part is
// still the source bytes it claims to be.
func TestSeeMarkerSpaces(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{})
	tests := []struct{ src, want string }{
		{"GMV rose [[see:m:gmv]].", "GMV rose."},
		{"GMV rose [[see:m:gmv]] sharply.", "GMV rose sharply."},
		{"GMV was [[m:gmv]] [[see:Q1]], up.", "GMV was 2,800.00 CNY, up."},
		{"销售额增长 [[see:m:gmv]]。", "销售额增长。"},
		{"Rose [[see:Q1]] [[see:m:gmv]]!", "Rose!"},
		{"Rose [[see:Q1]][[m:gmv]]", "Rose 2,800.00 CNY"},
		{"Rose [[see:Q1]]\nNext", "Rose\nNext"},
	}
	for _, tc := range tests {
		parts := doc.resolve(&Report{Node: "x", Art: evidence.ReportArtifact{Source: tc.src}})
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
			if p.Kind == PartText && tc.src[p.Start:p.End] != p.Text {
				t.Errorf("%q: part %q claims bytes %d-%d (%q)", tc.src, p.Text, p.Start, p.End, tc.src[p.Start:p.End])
			}
			if p.Text == "" {
				t.Errorf("%q: an empty part", tc.src)
			}
		}
		if b.String() != tc.want {
			t.Errorf("%q shows %q, want %q", tc.src, b.String(), tc.want)
		}
	}
}

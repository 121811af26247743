package retrieve

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSearch indexes two random documents and runs a random query with a
// random alpha and passage size: nothing panics, every score is finite and
// in range, hits are ordered, and each hit is an exact slice of its
// document.
func FuzzSearch(f *testing.F) {
	f.Add("# Refunds\n\nRefund within 30 days.", "退款政策：三十天内。", "refund 退款", 0.5, 800)
	f.Add("", "", "", 0.0, 0)
	f.Add("a a a a", "a", "a", 1.0, 1)
	f.Add("```\n# x\n\n", "\xff\xfe", "\xff", math.NaN(), -3)
	f.Fuzz(func(t *testing.T, d1, d2, query string, alpha float64, maxChars int) {
		maxChars = maxChars % 2000 // keep tiny passages possible but bounded
		docs := []Doc{{Path: "b.md", Text: d1}, {Path: "a.md", Text: d2}}
		ix := Build(docs, Options{MaxPassageChars: maxChars})
		hits := ix.Search(query, 10, alpha)
		if len(hits) > 10 {
			t.Fatalf("%d hits > topK", len(hits))
		}
		for i, h := range hits {
			for _, v := range []float64{h.BM25, h.Embed, h.Score} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("bad score in %+v", h)
				}
			}
			if h.Score <= 0 || h.Score > 1 || h.Embed > 1 {
				t.Fatalf("score out of range: %+v", h)
			}
			if i > 0 && hits[i-1].Score < h.Score {
				t.Fatalf("hits not ordered at %d", i)
			}
			text := d1
			if h.Path == "a.md" {
				text = d2
			}
			if h.Start < 0 || h.End > len(text) || h.Start >= h.End || text[h.Start:h.End] != h.Text {
				t.Fatalf("hit %+v is not a slice of its document", h)
			}
			if utf8.ValidString(text) && !utf8.ValidString(h.Text) {
				t.Fatalf("hit cuts a character: %q", h.Text)
			}
			if strings.TrimSpace(h.Text) == "" {
				t.Fatalf("blank hit")
			}
			if !Quote(h.Text, h.Text) {
				t.Fatalf("a hit does not quote itself: %q", h.Text)
			}
		}
	})
}

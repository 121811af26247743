package issuance

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzRead checks what must hold for any input: no panic, numbers in order
// and not overlapping, offsets inside the text and on the boundaries of the
// runes the scanner decodes, and a Check result that encodes as JSON.
func FuzzRead(f *testing.F) {
	for _, c := range readCases {
		f.Add(c.in)
	}
	// The corpus reports seed the Markdown structure: lists, tables,
	// headings, footnotes.
	files, _ := filepath.Glob("testdata/corpus/*.txtar")
	for _, file := range files {
		if a, err := txtar.ParseFile(file); err == nil {
			for _, af := range a.Files {
				if af.Name == "report.md" {
					f.Add(string(af.Data))
				}
			}
		}
	}
	metrics := []Metric{{Name: "gmv", Value: 1234.5}, {Name: "wow", Value: 0.087, Format: "percent"}}
	f.Fuzz(func(t *testing.T, text string) {
		bounds := make(map[int]bool, len(text)+1)
		for i := 0; i < len(text); {
			bounds[i] = true
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
		}
		bounds[len(text)] = true
		prev := 0
		for _, n := range Read(text) {
			if n.Start < prev || n.End <= n.Start || n.End > len(text) {
				t.Fatalf("number %q at [%d,%d) after %d in %q", n.Text, n.Start, n.End, prev, text)
			}
			if !bounds[n.Start] || !bounds[n.End] {
				t.Fatalf("number %q at [%d,%d) splits a rune in %q", n.Text, n.Start, n.End, text)
			}
			if text[n.Start:n.End] != n.Text {
				t.Fatalf("text %q != source %q", n.Text, text[n.Start:n.End])
			}
			if n.Value != nil && n.Interval != nil {
				t.Fatalf("number %q has both a value and an interval", n.Text)
			}
			if n.Ignored != nil && (n.Value != nil || n.Interval != nil) {
				t.Fatalf("ignored number %q has a value", n.Text)
			}
			if n.Interval != nil && n.Interval[0] > n.Interval[1] {
				t.Fatalf("interval %v of %q is reversed", *n.Interval, n.Text)
			}
			prev = n.End
		}
		res := Check(text, metrics, Options{Required: []string{"gmv"}})
		switch res.Tier {
		case TierFormal, TierDegraded, TierWithheld:
		default:
			t.Fatalf("tier %q", res.Tier)
		}
		if res.Tier == TierFormal && !utf8.ValidString(text) {
			t.Fatalf("formal verdict on invalid UTF-8")
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
	})
}

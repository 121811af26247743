package diag

import (
	"strings"
	"testing"
)

func TestTextSkipsBinaryLines(t *testing.T) {
	files := map[string]string{
		"db.sqlite": "SQLite format 3\x00\x10\x00\x01\x01",
		"ok.toml":   "[permissions]\n",
	}
	read := func(f string) ([]byte, error) { return []byte(files[f]), nil }
	l := List{
		{File: "db.sqlite", Line: 1, Col: 1, Severity: Error, Code: "E-X", Message: "binary"},
		{File: "ok.toml", Line: 1, Col: 1, Severity: Error, Code: "E-Y", Message: "text"},
	}
	var b strings.Builder
	if err := WriteText(&b, l, TextOptions{ReadFile: read}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "SQLite format") || strings.ContainsRune(out, 0) {
		t.Errorf("a binary file's line was printed:\n%q", out)
	}
	if !strings.Contains(out, "  [permissions]\n  ^\n") {
		t.Errorf("a text file's line is missing:\n%s", out)
	}
}

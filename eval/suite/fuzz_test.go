package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the parser panic and that every
// diagnostic has a code and a position inside the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(okSuite))
	f.Add([]byte("eval: 1\nflow: f.yml\nquestions:\n  - id: a\n    expect: 42\n"))
	f.Add([]byte("eval: 1\nflow: [\n"))
	f.Add([]byte("&a [*a]"))
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "lint", "bad.eval.yml")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, l := Parse("f.eval.yml", data)
		if s == nil && !l.HasErrors() {
			t.Fatal("nil suite without an error")
		}
		for _, d := range l {
			if d.Code == "" || d.Line < 0 || d.Col < 0 {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if s != nil {
			if _, _, err := s.Hash(); err != nil {
				t.Fatalf("hash: %v", err)
			}
		}
	})
}

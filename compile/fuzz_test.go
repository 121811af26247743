package compile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

// fuzzSeeds adds the ok corpus and every bad snippet of the code table.
func fuzzSeeds(f *testing.F) {
	paths, _ := filepath.Glob("testdata/ok/*.yml")
	cards, _ := filepath.Glob("testdata/ok/cards/*.yml")
	for _, p := range append(paths, cards...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, c := range codeCases {
		if c.raw == nil || len(c.raw) < 1<<16 {
			if c.raw != nil {
				f.Add(c.raw)
			} else {
				f.Add([]byte(c.flow))
			}
		}
	}
}

// FuzzLoad feeds arbitrary bytes to the YAML loader: it must never panic,
// and every diagnostic must have a position inside the file.
func FuzzLoad(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var l diag.List
		root, src := load("f.yml", data, &l)
		if root == nil && !l.HasErrors() {
			t.Fatal("no tree and no error")
		}
		for _, d := range l {
			if d.Line < 1 || d.Line > len(src.lineStarts())+1 || d.Col < 1 {
				t.Fatalf("diagnostic outside the file: %v", d)
			}
		}
		if root != nil {
			// Every scalar offset maps inside the file.
			seen := map[*V]bool{}
			var walk func(v *V, depth int)
			walk = func(v *V, depth int) {
				if depth > 50 || seen[v] {
					return
				}
				seen[v] = true
				if v.Kind == vScalar {
					for _, off := range []int{0, len(v.Str) / 2, len(v.Str)} {
						p := src.posIn(v, off)
						if p.Line < 1 || p.Line > len(src.lineStarts())+1 {
							t.Fatalf("posIn(%q, %d) = %v outside the file", v.Str, off, p)
						}
					}
				}
				for _, c := range v.Items() {
					walk(c, depth+1)
				}
				for _, c := range v.Vals() {
					walk(c, depth+1)
				}
			}
			walk(root, 0)
		}
	})
}

// FuzzCompile runs every pass over arbitrary flow bytes: it must never
// panic, a plan comes back only without errors, and its hash is stable.
func FuzzCompile(f *testing.F) {
	fuzzSeeds(f)
	dir := f.TempDir()
	path := filepath.Join(dir, "f.flow.yml")
	f.Fuzz(func(t *testing.T, data []byte) {
		var l diag.List
		p := newSession(Options{}).compileData(path, data, "", &l)
		if p != nil && l.HasErrors() {
			t.Fatal("a plan despite errors")
		}
		if p != nil {
			var l2 diag.List
			q := newSession(Options{}).compileData(path, data, "", &l2)
			h1, _ := p.Hash()
			h2, _ := q.Hash()
			if h1 != h2 {
				t.Fatal("two compiles of the same bytes differ")
			}
		}
	})
}

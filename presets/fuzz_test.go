package presets

import (
	"reflect"
	"testing"
)

// FuzzPatch feeds arbitrary bytes to the patch parser and applies whatever
// parses to the standard preset: nothing may panic, every diagnostic must
// carry a code, and applying twice must give the same rows.
func FuzzPatch(f *testing.F) {
	f.Add([]byte("base: standard\nops:\n  - disable: tool.file_grep\n"))
	f.Add([]byte("base: ptc\nops:\n  - insert: {id: x, use: tool, config: {name: db_query}}\n    after: persona\n"))
	f.Add([]byte("base: standard\nops:\n  - replace: guard.steps\n    config: {max_steps: 3}\n  - remove: guard.steps\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	std, _ := Builtin("standard")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ds := ParsePatch("f.patch.yml", data)
		for _, d := range ds {
			if d.Code == "" || d.Message == "" {
				t.Fatalf("diagnostic without code or message: %+v", d)
			}
		}
		if p == nil {
			return
		}
		a, ads := p.Apply(std.Rows)
		b, _ := p.Apply(std.Rows)
		if !reflect.DeepEqual(a, b) {
			t.Fatal("Apply is not deterministic")
		}
		for _, d := range ads {
			if d.Code == "" || d.Fix == "" {
				t.Fatalf("diagnostic without code or fix: %+v", d)
			}
		}
		consistency(a)
	})
}

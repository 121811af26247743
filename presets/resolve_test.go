package presets

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestResolveBuiltin(t *testing.T) {
	for _, name := range []string{"standard", "ptc", "minimal", "creator"} {
		p, ds := Resolve(name, "/nonexistent")
		if len(ds) > 0 || p.Name != name || len(p.Rows) == 0 {
			t.Fatalf("Resolve(%q) = %+v, %v", name, p, ds)
		}
	}
	p, ds := Resolve("", ".")
	if len(ds) > 0 || p.Name != "standard" {
		t.Fatalf("Resolve(\"\") = %q, %v; want standard", p.Name, ds)
	}
}

func TestResolvePatchChain(t *testing.T) {
	dir := writeFiles(t, files{
		"flows/presets/team.patch.yml": "base: ../../shared/base.patch.yml\nops:\n  - replace: guard.steps\n    config: {max_steps: 30}\n",
		"shared/base.patch.yml":        "base: ptc\nops:\n  - enable: tool.http_fetch\n",
	})
	p, ds := Resolve("presets/team.patch.yml", filepath.Join(dir, "flows"))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	if p.Name != "presets/team.patch.yml" {
		t.Fatalf("name %q: the plan must not embed machine paths", p.Name)
	}
	ptc, _ := Builtin("ptc")
	changes := Diff(ptc.Rows, p.Rows)
	got := map[string][]string{}
	for _, c := range changes {
		got[c.ID] = c.Fields
	}
	want := map[string][]string{
		"tool.http_fetch": {"disabled: true -> false"},
		"guard.steps":     {"config.max_steps: 100 -> 30"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
}

func TestResolveUnknown(t *testing.T) {
	p, ds := Resolve("standrd", t.TempDir())
	if len(ds) != 1 || ds[0].Code != CodeUnknownPreset || ds[0].File != "" || p.Rows != nil {
		t.Fatalf("got %+v %v", p, ds)
	}
	if want := `did you mean "standard"?`; ds[0].Fix[:len(want)] != want {
		t.Fatalf("fix %q", ds[0].Fix)
	}
}

func TestResolveErrorsReturnNoRows(t *testing.T) {
	dir := writeFiles(t, files{"p.patch.yml": "base: standard\nops:\n  - remove: nope\n"})
	p, ds := Resolve("p.patch.yml", dir)
	if !ds.HasErrors() || p.Rows != nil {
		t.Fatalf("got %+v %v", p, ds)
	}
}

func TestLintPatchUnreadable(t *testing.T) {
	ds := LintPatch(filepath.Join(t.TempDir(), "missing.patch.yml"))
	if len(ds) != 1 || ds[0].Code != CodeRead {
		t.Fatalf("got %v", ds)
	}
}

// The same patch resolves to identical rows every time (map order must
// never leak into the result).
func TestResolveDeterministic(t *testing.T) {
	dir := writeFiles(t, files{"p.patch.yml": `base: creator
ops:
  - insert: {id: z, use: tool, disabled: true, config: {name: db_query}}
    after: persona
  - insert: {id: y, use: tool, disabled: true, config: {name: db_query}}
    after: persona
  - replace: sandbox
    config: {backend: bwrap, timeout_s: 5, memory_mb: 64, output_bytes: 4096}
`})
	first, ds := Resolve("p.patch.yml", dir)
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	for range 20 {
		again, _ := Resolve("p.patch.yml", dir)
		if !reflect.DeepEqual(first, again) {
			t.Fatal("resolution is not deterministic")
		}
	}
	if got := ids(first.Rows)[:3]; !reflect.DeepEqual(got, []string{"persona", "y", "z"}) {
		t.Fatalf("order %v", got)
	}
}

func TestResolveMissingPatchFile(t *testing.T) {
	_, ds := Resolve("presets/none.patch.yml", t.TempDir())
	if len(ds) != 1 || ds[0].Code != CodeUnknownPreset || ds[0].Message != `preset patch file "presets/none.patch.yml" does not exist` {
		t.Fatalf("got %v", ds)
	}
}

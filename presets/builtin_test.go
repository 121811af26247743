package presets

import (
	"reflect"
	"testing"
)

func TestBuiltinsParseClean(t *testing.T) {
	if ds := builtinProblems(); len(ds) > 0 {
		for _, d := range ds {
			t.Errorf("%s", d)
		}
	}
	want := []string{"creator", "minimal", "ptc", "standard"}
	if got := Builtins(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Builtins() = %v, want %v", got, want)
	}
}

func TestBuiltinGuardrailDefaults(t *testing.T) {
	info, ok := Builtin("standard")
	if !ok {
		t.Fatal("standard missing")
	}
	want := map[string]map[string]any{
		"guard.steps":       {"max_steps": 100.0},
		"guard.no_progress": {"no_progress_steps": 3.0},
		"guard.context":     {"wrap_up_at": 0.85},
		"compaction":        {"compress_at": 0.60, "keep_recent": 4.0},
		"presentation":      {"mode": "native", "sdk_language": "python", "max_parallel_calls": 10.0},
	}
	for _, r := range info.Rows {
		if w, ok := want[r.ID]; ok {
			if !reflect.DeepEqual(r.Config, w) {
				t.Errorf("%s config = %v, want %v", r.ID, r.Config, w)
			}
			delete(want, r.ID)
		}
	}
	if len(want) > 0 {
		t.Errorf("rows missing from standard: %v", want)
	}
}

// ptc must differ from standard only where code mode needs it.
func TestPTCDiffersFromStandardOnlyWhereItMust(t *testing.T) {
	std, _ := Builtin("standard")
	ptc, _ := Builtin("ptc")
	got := map[string][]string{}
	for _, c := range Diff(std.Rows, ptc.Rows) {
		got[c.ID] = c.Fields
	}
	want := map[string][]string{
		"presentation":   {`config.mode: "native" -> "ptc"`},
		"tool.file_grep": {"disabled: false -> true"},
		"tool.run_code":  {"disabled: true -> false"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("diff standard ptc = %v, want %v", got, want)
	}
}

func TestBuiltinReturnsCopy(t *testing.T) {
	a, _ := Builtin("standard")
	a.Rows[0].Config["prefix"] = "changed"
	a.Rows[1].Disabled = true
	b, _ := Builtin("standard")
	if b.Rows[0].Config["prefix"] == "changed" || b.Rows[1].Disabled {
		t.Fatal("Builtin returned shared state")
	}
}

func TestCreatorPersonaIsComplete(t *testing.T) {
	info, _ := Builtin("creator")
	if info.Rows[0].Use != UsePersona || info.Rows[0].Config["complete"] != true {
		t.Fatalf("creator persona = %+v, want complete: true", info.Rows[0])
	}
}

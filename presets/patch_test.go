package presets

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func ids(rows []plan.PresetRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

func rowByID(rows []plan.PresetRow, id string) (plan.PresetRow, bool) {
	for _, r := range rows {
		if r.ID == id {
			return r, true
		}
	}
	return plan.PresetRow{}, false
}

// codesAt renders diagnostics as "line:col CODE" for compact comparison.
func codesAt(ds diag.List) []string {
	var out []string
	for _, d := range ds.Sorted() {
		out = append(out, fmt.Sprintf("%d:%d %s", d.Line, d.Col, d.Code))
	}
	return out
}

func TestPatchOps(t *testing.T) {
	std, _ := Builtin("standard")
	tests := []struct {
		name  string
		patch string
		check func(t *testing.T, rows []plan.PresetRow)
	}{
		{"insert after", `base: standard
ops:
  - insert: {id: tool.web, use: tool, disabled: true, config: {name: http_fetch}}
    after: tool.db_query
`, func(t *testing.T, rows []plan.PresetRow) {
			got := ids(rows)[:4]
			if want := []string{"persona", "presentation", "tool.db_query", "tool.web"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("order %v, want %v", got, want)
			}
			r, _ := rowByID(rows, "tool.web")
			if !r.Disabled || r.Config["name"] != "http_fetch" {
				t.Fatalf("inserted row %+v", r)
			}
		}},
		{"insert before", `base: standard
ops:
  - insert: {id: persona2, use: persona, disabled: true, config: {prefix: "hi"}}
    before: persona
`, func(t *testing.T, rows []plan.PresetRow) {
			if ids(rows)[0] != "persona2" || len(rows) != len(std.Rows)+1 {
				t.Fatalf("rows %v", ids(rows))
			}
		}},
		{"replace", `base: standard
ops:
  - replace: guard.steps
    config: {max_steps: 40}
`, func(t *testing.T, rows []plan.PresetRow) {
			r, _ := rowByID(rows, "guard.steps")
			if !reflect.DeepEqual(r.Config, map[string]any{"max_steps": 40.0}) {
				t.Fatalf("config %v", r.Config)
			}
		}},
		{"disable", "base: standard\nops:\n  - disable: tool.file_grep\n", func(t *testing.T, rows []plan.PresetRow) {
			if r, _ := rowByID(rows, "tool.file_grep"); !r.Disabled {
				t.Fatal("not disabled")
			}
		}},
		{"enable", "base: standard\nops:\n  - enable: tool.http_fetch\n", func(t *testing.T, rows []plan.PresetRow) {
			if r, _ := rowByID(rows, "tool.http_fetch"); r.Disabled {
				t.Fatal("not enabled")
			}
		}},
		{"remove", "base: standard\nops:\n  - remove: compaction\n", func(t *testing.T, rows []plan.PresetRow) {
			if _, ok := rowByID(rows, "compaction"); ok || len(rows) != len(std.Rows)-1 {
				t.Fatalf("rows %v", ids(rows))
			}
		}},
		{"inserts chain on each other", `base: minimal
ops:
  - insert: {id: a, use: tool, config: {name: file_read}}
    after: tool.db_query
  - insert: {id: b, use: tool, config: {name: file_list}}
    after: a
  - insert: {id: c, use: tool, config: {name: file_grep}}
    before: a
`, func(t *testing.T, rows []plan.PresetRow) {
			if got := ids(rows)[2:6]; !reflect.DeepEqual(got, []string{"tool.db_query", "c", "a", "b"}) {
				t.Fatalf("order %v", got)
			}
		}},
		{"empty ops is the base", "base: ptc\nops: []\n", func(t *testing.T, rows []plan.PresetRow) {
			ptc, _ := Builtin("ptc")
			if !reflect.DeepEqual(rows, ptc.Rows) {
				t.Fatal("rows differ from base")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"p.patch.yml": tt.patch})
			rows, ds := LoadPatch(filepath.Join(dir, "p.patch.yml"))
			if len(ds) > 0 {
				t.Fatalf("unexpected diagnostics: %v", ds)
			}
			tt.check(t, rows)
		})
	}
}

func TestPatchApplyDoesNotModifyBase(t *testing.T) {
	std, _ := Builtin("standard")
	before := cloneRows(std.Rows)
	p, ds := ParsePatch("p.patch.yml", []byte("base: standard\nops:\n  - disable: persona\n  - replace: sandbox\n    config: {backend: process}\n  - remove: compaction\n"))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	if _, ds := p.Apply(std.Rows); len(ds) > 0 {
		t.Fatal(ds)
	}
	if !reflect.DeepEqual(std.Rows, before) {
		t.Fatal("Apply changed its input")
	}
}

func TestPatchErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // p.patch.yml is linted
		want  []string          // "line:col CODE", sorted
		msg   string            // a substring of some message, when set
	}{
		{"missing id in replace", files{"p.patch.yml": "base: standard\nops:\n  - replace: guard.stepz\n    config: {max_steps: 3}\n"}, []string{"3:14 E-PRESET-MISSING-ID"}, `did you mean "guard.steps"`},
		{"missing id in disable", files{"p.patch.yml": "base: standard\nops:\n  - disable: nope\n"}, []string{"3:14 E-PRESET-MISSING-ID"}, ""},
		{"missing anchor", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: x, use: tool, config: {name: db_query}}\n    after: nowhere\n"}, []string{"4:12 E-PRESET-MISSING-ID"}, ""},
		{"insert duplicate of base row", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: persona, use: persona, config: {prefix: x}}\n    after: sandbox\n"}, []string{"3:18 E-PRESET-DUPLICATE-ID"}, "already has a row"},
		{"insert twice", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: x, use: tool, disabled: true, config: {name: db_query}}\n    after: sandbox\n  - insert: {id: x, use: tool, disabled: true, config: {name: db_query}}\n    after: sandbox\n"}, []string{"5:5 E-PRESET-DUPLICATE-ID"}, "inserted twice"},
		{"remove + replace", files{"p.patch.yml": "base: standard\nops:\n  - remove: sandbox\n  - replace: sandbox\n    config: {backend: auto}\n"}, []string{"4:5 E-PRESET-CONFLICT"}, "both removed and replaced"},
		{"replace + remove", files{"p.patch.yml": "base: standard\nops:\n  - replace: sandbox\n    config: {backend: auto}\n  - remove: sandbox\n"}, []string{"5:5 E-PRESET-CONFLICT"}, "other op is at line 3"},
		{"disable + enable", files{"p.patch.yml": "base: standard\nops:\n  - disable: persona\n  - enable: persona\n"}, []string{"4:5 E-PRESET-CONFLICT"}, "both disabled and enabled"},
		{"disable twice", files{"p.patch.yml": "base: standard\nops:\n  - disable: persona\n  - disable: persona\n"}, []string{"4:5 E-PRESET-CONFLICT"}, "twice"},
		{"replace twice", files{"p.patch.yml": "base: standard\nops:\n  - replace: sandbox\n    config: {backend: auto}\n  - replace: sandbox\n    config: {backend: bwrap}\n"}, []string{"5:5 E-PRESET-CONFLICT"}, ""},
		{"remove twice", files{"p.patch.yml": "base: standard\nops:\n  - remove: sandbox\n  - remove: sandbox\n"}, []string{"4:5 E-PRESET-CONFLICT"}, ""},
		{"op on inserted row", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: x, use: tool, disabled: true, config: {name: db_query}}\n    after: sandbox\n  - enable: x\n"}, []string{"5:5 E-PRESET-CONFLICT"}, "inserted by this patch"},
		{"anchor removed", files{"p.patch.yml": "base: standard\nops:\n  - remove: sandbox\n  - insert: {id: x, use: tool, disabled: true, config: {name: db_query}}\n    after: sandbox\n"}, []string{"5:12 E-PRESET-CONFLICT"}, "which this patch removes"},
		{"unknown top key", files{"p.patch.yml": "base: standard\nopz: []\n"}, []string{"1:1 E-PRESET-MISSING-KEY", "2:1 E-PRESET-UNKNOWN-KEY"}, `did you mean "ops"`},
		{"unknown op key", files{"p.patch.yml": "base: standard\nops:\n  - replace: sandbox\n    confg: {backend: auto}\n"}, []string{"3:5 E-PRESET-MISSING-KEY", "4:5 E-PRESET-UNKNOWN-KEY"}, `did you mean "config"`},
		{"unknown verb", files{"p.patch.yml": "base: standard\nops:\n  - disabel: sandbox\n"}, []string{"3:5 E-PRESET-MISSING-KEY", "3:5 E-PRESET-UNKNOWN-KEY"}, `did you mean "disable"`},
		{"unknown row key", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: x, use: tool, confg: {name: db_query}}\n    after: sandbox\n"}, []string{"3:32 E-PRESET-UNKNOWN-KEY"}, ""},
		{"unknown config key", files{"p.patch.yml": "base: standard\nops:\n  - replace: guard.steps\n    config: {max_step: 3}\n"}, []string{"4:14 E-PRESET-UNKNOWN-KEY"}, `did you mean "max_steps"`},
		{"bad config value", files{"p.patch.yml": "base: standard\nops:\n  - replace: sandbox\n    config: {backend: docker}\n"}, []string{"4:14 E-PRESET-CONFIG"}, "not one of auto, bwrap, process"},
		{"config out of range", files{"p.patch.yml": "base: standard\nops:\n  - replace: guard.steps\n    config: {max_steps: 0}\n"}, []string{"4:14 E-PRESET-CONFIG"}, "out of range"},
		{"unknown use", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: x, use: tools, config: {name: db_query}}\n    after: sandbox\n"}, []string{"3:26 E-PRESET-USE"}, `did you mean "tool"`},
		{"row without id", files{"p.patch.yml": "base: standard\nops:\n  - insert: {use: tool, config: {name: db_query}}\n    after: sandbox\n"}, []string{"3:13 E-PRESET-MISSING-KEY"}, "no id"},
		{"bad id", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: Bad, use: tool, config: {name: db_query}}\n    after: sandbox\n"}, []string{"3:18 E-PRESET-BAD-ID"}, ""},
		{"insert without anchor", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: x, use: tool, disabled: true, config: {name: db_query}}\n"}, []string{"3:5 E-PRESET-MISSING-KEY"}, "where the row goes"},
		{"insert with both anchors", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: x, use: tool, disabled: true, config: {name: db_query}}\n    after: sandbox\n    before: sandbox\n"}, []string{"5:5 E-PRESET-SCHEMA"}, ""},
		{"two verbs", files{"p.patch.yml": "base: standard\nops:\n  - disable: persona\n    remove: persona\n"}, []string{"4:5 E-PRESET-SCHEMA"}, ""},
		{"unknown base", files{"p.patch.yml": "base: standart\nops: []\n"}, []string{"1:7 E-PRESET-UNKNOWN-BASE"}, `did you mean "standard"`},
		{"missing base", files{"p.patch.yml": "ops: []\n"}, []string{"1:1 E-PRESET-MISSING-KEY"}, ""},
		{"duplicate key", files{"p.patch.yml": "base: standard\nbase: ptc\nops: []\n"}, []string{"2:1 E-PRESET-DUPLICATE-KEY"}, ""},
		{"yaml syntax", files{"p.patch.yml": "base: standard\nops: [\n"}, []string{"2:1 E-PRESET-YAML"}, ""},
		{"not a mapping", files{"p.patch.yml": "- base\n"}, []string{"1:1 E-PRESET-SCHEMA"}, ""},
		{"empty file", files{"p.patch.yml": ""}, []string{"1:1 E-PRESET-SCHEMA"}, ""},
		{"ops not a list", files{"p.patch.yml": "base: standard\nops: {disable: persona}\n"}, []string{"2:6 E-PRESET-SCHEMA"}, ""},
		{"ptc without run_code", files{"p.patch.yml": "base: standard\nops:\n  - replace: presentation\n    config: {mode: ptc}\n"}, []string{"3:5 E-PRESET-CONSISTENCY"}, "run_code"},
		{"two personas", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: p2, use: persona, config: {prefix: x}}\n    after: persona\n"}, []string{"3:5 E-PRESET-CONSISTENCY"}, "only one may be"},
		{"compress after wrap-up", files{"p.patch.yml": "base: standard\nops:\n  - replace: compaction\n    config: {compress_at: 0.9}\n"}, []string{"3:5 E-PRESET-CONSISTENCY"}, "compress_at 0.9"},
		// The contradiction is reported at the op that causes it, even when
		// that op acts on another row than the one the message is about.
		{"ptc: run_code disabled by a later op", files{"p.patch.yml": "base: ptc\nops:\n  - disable: tool.file_grep\n  - enable: tool.http_fetch\n  - disable: tool.run_code\n"}, []string{"5:5 E-PRESET-CONSISTENCY"}, "run_code"},
		{"wrap-up lowered below compaction", files{"p.patch.yml": "base: standard\nops:\n  - disable: tool.file_grep\n  - replace: guard.context\n    config: {wrap_up_at: 0.5}\n"}, []string{"4:5 E-PRESET-CONSISTENCY"}, "compress_at 0.6 is not below wrap_up_at 0.5"},
		{"a tool enabled after a row of the same name was inserted", files{"p.patch.yml": "base: standard\nops:\n  - insert: {id: tool.h2, use: tool, config: {name: http_fetch}}\n    after: sandbox\n  - enable: tool.http_fetch\n"}, []string{"5:5 E-PRESET-CONSISTENCY"}, "both enable tool"},
		{"cycle", map2("p.patch.yml", "base: q.patch.yml\nops: []\n", "q.patch.yml", "base: ./p.patch.yml\nops: []\n"), []string{"1:7 E-PRESET-CYCLE"}, "p.patch.yml -> q.patch.yml -> p.patch.yml"},
		{"self cycle", files{"p.patch.yml": "base: p.patch.yml\nops: []\n"}, []string{"1:7 E-PRESET-CYCLE"}, ""},
		{"base with errors", map2("p.patch.yml", "base: sub/q.patch.yml\nops: []\n", "sub/q.patch.yml", "base: standard\nops:\n  - remove: nope\n"), []string{"3:13 E-PRESET-MISSING-ID"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := tt.files
			dir := writeFiles(t, files)
			ds := LintPatch(filepath.Join(dir, "p.patch.yml"))
			if got := codesAt(ds); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v\n%v", got, tt.want, ds)
			}
			for _, d := range ds {
				if d.Fix == "" {
					t.Errorf("%s has no fix", d)
				}
			}
			var text strings.Builder
			for _, d := range ds {
				text.WriteString(d.Message + " | " + d.Fix + "\n")
			}
			if tt.msg != "" && !strings.Contains(text.String(), tt.msg) {
				t.Fatalf("no message contains %q: %v", tt.msg, ds)
			}
		})
	}
}

// files is a map literal helper; a plain string means just p.patch.yml.
type files = map[string]string

func map2(k1, v1, k2, v2 string) files { return files{k1: v1, k2: v2} }

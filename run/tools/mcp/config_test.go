package mcp

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/run/permission"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/config/err")

// TestConfigErrors checks the diagnostics of every file under
// testdata/config/err against its .out golden file: one line per
// diagnostic, "file:line:col: CODE: message (fix: …)".
func TestConfigErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/config/err/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			specs, ds := LoadConfig(f)
			if specs != nil {
				t.Errorf("specs = %v, want nil with errors", specs)
			}
			if !ds.HasErrors() {
				t.Fatal("no error")
			}
			got := render(ds)
			golden := strings.TrimSuffix(f, ".toml") + ".out"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("diagnostics of %s:\n%s\nwant:\n%s", f, got, want)
			}
		})
	}
}

func render(ds diag.List) string {
	var b strings.Builder
	for _, d := range ds.Sorted() {
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s (fix: %s)\n", filepath.Base(d.File), d.Line, d.Col, d.Code, d.Message, d.Fix)
	}
	return b.String()
}

func TestConfigOK(t *testing.T) {
	dir, err := filepath.Abs("testdata/config/ok")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "full.toml")
	specs, ds := LoadConfig(file)
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	want := []ServerSpec{
		{Name: "notes", Command: []string{"notes-mcp", "--stdio"}, Env: map[string]string{"NOTES_DIR": "/srv/notes"},
			PassEnv: []string{"NOTES_TOKEN"}, Dir: filepath.Join(dir, "tools"), Approval: permission.ModeGated,
			Tools: []string{"search", "read"}, StartTimeout: 10 * time.Second, CallTimeout: 120 * time.Second,
			File: file, Pos: diag.Pos{Line: 4, Col: 1}},
		{Name: "git", Command: []string{"/usr/local/bin/git-mcp"}, Dir: dir, Approval: permission.ModeAsk,
			StartTimeout: DefaultStartTimeout, CallTimeout: DefaultCallTimeout, File: file, Pos: diag.Pos{Line: 15, Col: 1}},
	}
	if !reflect.DeepEqual(specs, want) {
		t.Errorf("specs =\n%+v\nwant\n%+v", specs, want)
	}
	for _, f := range []string{filepath.Join(dir, "none.toml"), filepath.Join(dir, "missing.toml")} {
		if specs, ds := LoadConfig(f); specs != nil || ds != nil {
			t.Errorf("%s: %v %v, want no servers and no diagnostics", f, specs, ds)
		}
	}
}

func TestConfigUnreadable(t *testing.T) {
	_, ds := LoadConfig(t.TempDir()) // a directory
	if len(ds) != 1 || ds[0].Code != CodeConfig || ds[0].Line != 1 {
		t.Errorf("unreadable file: %v", ds)
	}
}

// TestNamesHostileServer is a server that offers "read.note" beside
// "read_note", hoping the first takes the name (and the allow rule) of the
// second: the unchanged name keeps its name whatever the order.
func TestNamesHostileServer(t *testing.T) {
	got := newNamer("x").assignAll([]string{"read.note", "read_note"})
	if got["read_note"] != "mcp__x__read_note" || got["read.note"] == "mcp__x__read_note" || !strings.HasPrefix(got["read.note"], "mcp__x__read_note_") {
		t.Errorf("names = %v", got)
	}
}

func TestNames(t *testing.T) {
	n := newNamer("notes")
	got := []string{
		n.assign("search"),
		n.assign("notes.search"),
		n.assign("notes_search"), // collides with the mapped name above
		n.assign(strings.Repeat("x", 70)),
		n.assign("ünïcode/tool"),
	}
	long := ToolName("notes", strings.Repeat("x", 70))[:55]
	want := []string{"mcp__notes__search", "mcp__notes__notes_search", "mcp__notes__notes_search_", long, "mcp__notes___n_code_tool"}
	for i := range want {
		if i == 2 || i == 3 {
			if !strings.HasPrefix(got[i], want[i]) || len(got[i]) > maxName || got[i] == got[1] {
				t.Errorf("name %d = %q, want %q + a hash, at most %d characters", i, got[i], want[i], maxName)
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, got[i], want[i])
		}
	}
	if again := newNamer("notes"); again.assign(strings.Repeat("x", 70)) != got[3] {
		t.Error("a hashed name is not stable")
	}
	for _, name := range got {
		server, _, ok := SplitName(name)
		if !ok || server != "notes" {
			t.Errorf("SplitName(%q) = %q, %v", name, server, ok)
		}
	}
	if _, _, ok := SplitName("mcp__notes"); ok {
		t.Error("SplitName accepted a name without a tool")
	}
}

func TestMerge(t *testing.T) {
	project := []ServerSpec{{Name: "notes", File: "agentlab.toml"}, {Name: "git", File: "agentlab.toml"}}
	user := []ServerSpec{{Name: "notes", File: "config.toml"}, {Name: "search", File: "config.toml"}}
	got := Merge(project, user)
	want := []ServerSpec{{Name: "git", File: "agentlab.toml"}, {Name: "notes", File: "agentlab.toml"}, {Name: "search", File: "config.toml"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %+v, want %+v", got, want)
	}
}

func TestSelect(t *testing.T) {
	specs := []ServerSpec{{Name: "git"}, {Name: "notes"}, {Name: "search"}}
	use, unknown := Select(specs, []string{"file_read", "mcp__notes__search", "mcp__notes__read", "mcp__wiki__page", "mcp__bad", "mcp__git__log"})
	var names []string
	for _, s := range use {
		names = append(names, s.Name)
	}
	if !reflect.DeepEqual(names, []string{"git", "notes"}) || !reflect.DeepEqual(unknown, []string{"wiki"}) {
		t.Errorf("Select = %v, unknown %v", names, unknown)
	}
}

package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestShowArgsInvisibleRunes: an argument that hides text with C1
// controls or bidirectional marks is shown with each of them escaped, so
// the operator reads the call as the tool receives it.
func TestShowArgsInvisibleRunes(t *testing.T) {
	for _, r := range []rune{0x80, 0x9f, 0x202a, 0x202e, 0x2066, 0x2069, 0x200e, 0x200f, 0x61c} {
		raw, _ := json.Marshal("rm" + string(r) + "x")
		got := compactJSON(raw)
		if want := fmt.Sprintf(`\u%04x`, r); !strings.Contains(got, want) {
			t.Errorf("U+%04X: %s, want %s in it", r, got, want)
		}
	}
	if got := compactJSON(json.RawMessage(`"a\u00a0b"`)); got != "\"a\u00a0b\"" {
		t.Errorf("U+00A0 is visible and kept: %s", got)
	}
}

// TestFoldTextThirds: a padded value keeps its first two thirds and its
// last third of the fold, and says how many characters are between.
func TestFoldTextThirds(t *testing.T) {
	got := foldText("abcdefghijklmnopqrstuvwxyz0123", 9)
	want := "abcdef …[21 characters folded; the whole value is what runs]… 123"
	if got != want {
		t.Errorf("foldText = %q, want %q", got, want)
	}
}

// TestFlowScopedAndOperatorAllows: which tools a flow's allow may open,
// and that one operator file allowing a tool (the other silent) allows it.
func TestFlowScopedAndOperatorAllows(t *testing.T) {
	for tool, want := range map[string]bool{"db_query__sales": true, "run_code": true, "read_file": false, "run_code_x": false} {
		if got := FlowScoped(tool); got != want {
			t.Errorf("FlowScoped(%q) = %v", tool, got)
		}
	}
	allow := &Config{Rules: []Rule{{Tool: "read_*", Decision: Allow}}}
	if !allow.Allows("read_file") || allow.Allows("write_file") {
		t.Error("Allows does not follow the rule's glob")
	}
	if !OperatorAllows(allow, nil, "read_file") || !OperatorAllows(nil, allow, "read_file") {
		t.Error("one file allowing and the other silent does not allow")
	}
}

// TestNewRefusesForgedFlowRule: a flow that brings a rule with no valid
// decision is refused, naming the flow rule by its number.
func TestNewRefusesForgedFlowRule(t *testing.T) {
	_, err := New(Config{}, Options{FlowRules: []Rule{{Tool: "run_code", Decision: "maybe"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "flow permissions rule 1: ") {
		t.Fatalf("New = %v", err)
	}
}

// TestNewLeavesSharedConfigAlone: a Config shared by several checkers is
// not written by New (its argument matchers are compiled on copies).
func TestNewLeavesSharedConfigAlone(t *testing.T) {
	cfg := Config{Rules: []Rule{{Tool: "read_file", Arg: &ArgMatcher{Path: "path", Glob: "/etc/*"}, Decision: Deny}}}
	if _, err := New(cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	if m := cfg.Rules[0].Arg; m.re != nil || m.steps != nil {
		t.Error("New compiled the shared configuration's matcher in place")
	}
}

// TestNormalizeBeforeRules: rules match the arguments as the tool will
// act on them, so a path spelled relative is allowed by the rule for the
// absolute path it resolves to.
func TestNormalizeBeforeRules(t *testing.T) {
	cfg := Config{Rules: []Rule{{Tool: "read_file", Arg: &ArgMatcher{Path: "path", Glob: "/data/*"}, Decision: Allow}}}
	c, err := New(cfg, Options{Normalize: func(tool string, args any) any {
		m, _ := args.(map[string]any)
		if p, ok := m["path"].(string); ok && !strings.HasPrefix(p, "/") {
			m["path"] = "/data/" + p
		}
		return m
	}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Check(context.Background(), "read_file", json.RawMessage(`{"path":"a.csv"}`))
	if err != nil || !d.Allowed {
		t.Errorf("Check = %+v, %v; want allowed by the rule for /data/*", d, err)
	}
}

// TestConfigModesNotATable and an unreadable file: each is a diagnostic
// with a position, never a silent empty configuration.
func TestConfigModesNotATable(t *testing.T) {
	_, ds := ParseConfig("agentlab.toml", []byte("[permissions]\nmodes = \"ask\"\n"))
	if len(ds) != 1 || ds[0].Code != CodeConfig || !strings.Contains(ds[0].Message, "permissions.modes is not a table") {
		t.Errorf("diagnostics %v", ds)
	}
	_, ds = LoadConfigFile(t.TempDir()) // a directory: cannot be read as a file
	if len(ds) != 1 || ds[0].Line != 1 || ds[0].Col != 1 || ds[0].Code != CodeConfig {
		t.Errorf("an unreadable configuration: %v", ds)
	}
}

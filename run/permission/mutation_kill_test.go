package permission

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check runs one call through c and fails the test on an error.
func check(t *testing.T, c *Checker, tool, args string) Decision {
	t.Helper()
	d, err := c.Check(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestArgPathIndexZeroEvader calls a tool with the dangerous value in the
// first element of an array: a deny on a[0].b must still apply, and a path
// into an element that is not there, or through a scalar, must match
// nothing (so a later allow decides).
func TestArgPathIndexZeroEvader(t *testing.T) {
	c := mustNew(t, Config{Rules: []Rule{
		{Tool: "file_write", Arg: &ArgMatcher{Path: "files[0].path", Glob: "secrets/*"}, Decision: Deny},
		{Tool: "file_write", Arg: &ArgMatcher{Path: "files[1].path", Glob: "secrets/*"}, Decision: Deny},
		{Tool: "file_write", Arg: &ArgMatcher{Path: "target.path", Glob: "*"}, Decision: Deny},
		{Tool: "*", Decision: Allow},
	}}, Options{})
	tests := []struct {
		name, args string
		allowed    bool
		source     string
	}{
		{"first element", `{"files":[{"path":"secrets/key"}]}`, false, "rule 1"},
		{"second element", `{"files":[{"path":"ok"},{"path":"secrets/key"}]}`, false, "rule 2"},
		{"no second element", `{"files":[{"path":"ok"}]}`, true, "rule 4"},
		{"path through a string", `{"target":"secrets/key"}`, true, "rule 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := check(t, c, "file_write", tt.args)
			if d.Allowed != tt.allowed || d.Source != tt.source {
				t.Errorf("%s = %+v, want allowed=%v by %s", tt.args, d, tt.allowed, tt.source)
			}
		})
	}
}

// TestArgNumberWithFraction checks that a number argument is matched in its
// shortest decimal form: a deny on amount 2.5 is not evaded, and 2 is not
// taken for 2.5.
func TestArgNumberWithFraction(t *testing.T) {
	c := mustNew(t, Config{Rules: []Rule{
		{Tool: "pay", Arg: &ArgMatcher{Path: "amount", Glob: "2.5"}, Decision: Deny},
		{Tool: "*", Decision: Allow},
	}}, Options{})
	if d := check(t, c, "pay", `{"amount":2.5}`); d.Allowed {
		t.Errorf("2.5 evaded the deny: %+v", d)
	}
	if d := check(t, c, "pay", `{"amount":2}`); !d.Allowed {
		t.Errorf("2 matched the deny on 2.5: %+v", d)
	}
}

// TestCIRefusalNamesFirstRule checks that a refusal in CI says where an
// allow rule must go when the asking rule is the first one.
func TestCIRefusalNamesFirstRule(t *testing.T) {
	c := mustNew(t, Config{Rules: []Rule{{Tool: "*", Decision: Ask}}}, Options{})
	d := check(t, c, "shell", `{}`)
	if d.Allowed || d.Source != SourceCIRefused || !strings.Contains(d.Reason, "(placed before rule 1)") {
		t.Errorf("refusal = %+v", d)
	}
}

// TestGateTimeoutFromConfig gives a gate that never answers: the one-second
// timeout of the configuration must cut it off, not the 30 s default.
func TestGateTimeoutFromConfig(t *testing.T) {
	stuck := func(ctx context.Context, _ string, _ json.RawMessage) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	c := mustNew(t, Config{GateTimeoutS: 1, Modes: map[string]Mode{"http_fetch": ModeGated}}, Options{Gate: stuck})
	d := check(t, c, "http_fetch", `{}`)
	if d.Allowed || !strings.Contains(d.Reason, "timed out after 1s") {
		t.Errorf("stuck gate = %+v", d)
	}
}

// TestGateTimeoutBounds checks the limits of gate_timeout_s: 1 and 3600
// are accepted, 0 and 3601 are not.
func TestGateTimeoutBounds(t *testing.T) {
	for _, tt := range []struct {
		v  string
		ok bool
	}{{"1", true}, {"3600", true}, {"0", false}, {"3601", false}, {"-5", false}, {`"10"`, false}} {
		cfg, ds := ParseConfig("agentlab.toml", []byte("[permissions]\ngate_timeout_s = "+tt.v+"\n"))
		if tt.ok != (cfg != nil && len(ds) == 0) {
			t.Errorf("gate_timeout_s = %s: cfg %+v, diagnostics %v", tt.v, cfg, ds)
		}
		if !tt.ok && (len(ds) != 1 || ds[0].Line != 2) {
			t.Errorf("gate_timeout_s = %s: want one diagnostic at line 2, got %v", tt.v, ds)
		}
	}
}

// TestConfigDiagnosticPositions edits agentlab.toml as text: a syntax
// error and an unknown key must be reported at their own lines, below
// other tables.
func TestConfigDiagnosticPositions(t *testing.T) {
	_, ds := ParseConfig("agentlab.toml", []byte("[ptc]\nmode = \"off\"\n[permissions\n"))
	if len(ds) != 1 || ds[0].Line != 3 || ds[0].Code != CodeConfig {
		t.Errorf("syntax error: %v", ds)
	}
	_, ds = ParseConfig("agentlab.toml", []byte("[ptc]\nmode = \"off\"\n\n[permissions]\ncolour = 1\n"))
	if len(ds) != 1 || ds[0].Line != 5 || !strings.Contains(ds[0].Message, "colour") {
		t.Errorf("unknown key: %v", ds)
	}
}

// TestLoadConfigFile reads a real file, a missing one (every call asks)
// and a directory in its place (an error, not an empty configuration).
func TestLoadConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agentlab.toml")
	if err := os.WriteFile(path, []byte("[[permissions.rules]]\ntool = \"*\"\ndecision = \"deny\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, ds := LoadConfigFile(path)
	if len(ds) != 0 || cfg == nil || len(cfg.Rules) != 1 || cfg.Rules[0].Decision != Deny {
		t.Fatalf("file: %+v, %v", cfg, ds)
	}
	cfg, ds = LoadConfigFile(filepath.Join(dir, "missing.toml"))
	if len(ds) != 0 || cfg == nil || len(cfg.Rules) != 0 {
		t.Fatalf("missing: %+v, %v", cfg, ds)
	}
	cfg, ds = LoadConfigFile(dir)
	if cfg != nil || len(ds) != 1 || !strings.Contains(ds[0].Message, "cannot read") {
		t.Fatalf("directory: %+v, %v", cfg, ds)
	}
}

// TestMemoryFileDamaged edits the memory file as text: a damaged file is
// never read as decisions (its remembered answers are ignored, with a
// warning naming the file), and a directory in its place is an error.
func TestMemoryFileDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "permissions.json")
	if err := os.WriteFile(path, []byte(`{"always_deny": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	scope := Scope{Project: dir, KeyFile: filepath.Join(dir, "key")}
	m, warning, err := LoadMemory(path, scope)
	if err != nil || !strings.Contains(warning, path) {
		t.Fatalf("damaged file: %v, %q, %v", m, warning, err)
	}
	if _, _, err := LoadMemory(dir, scope); err == nil {
		t.Fatal("a directory read as memory")
	}
	// Save into a path whose parent is a file fails and says so.
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := NewMemory().Save(filepath.Join(blocker, "m.json")); err == nil {
		t.Fatal("Save under a file succeeded")
	}
}

// TestPromptTypedAhead answers "n" and has "y" typed ahead: the "n" is the
// answer, and the "y" must not be read as a second chance. End of input is
// no at once, without asking again.
func TestPromptTypedAhead(t *testing.T) {
	for _, tt := range []struct {
		input string
		want  Answer
		asks  int
	}{{"n\ny\n", AnswerNo, 1}, {"no\ny\n", AnswerNo, 1}, {"", AnswerNo, 1}, {"maybe\ny\n", AnswerYes, 2}} {
		var out bytes.Buffer
		p := NewTTYPrompter(strings.NewReader(tt.input), &out)
		a, err := p.Ask(context.Background(), Request{Tool: "t", Args: json.RawMessage(`{}`)})
		if err != nil || a != tt.want {
			t.Errorf("input %q: %s, %v; want %s", tt.input, a, err, tt.want)
		}
		if n := strings.Count(out.String(), "Allow?"); n != tt.asks {
			t.Errorf("input %q: asked %d times, want %d\n%s", tt.input, n, tt.asks, out.String())
		}
	}
}

// TestArgPathNameIntoArray: a path that names a key where the arguments hold
// an array (items.first.name on {"items": [{"name": …}]}) matches nothing;
// the key is not read as the index 0.
func TestArgPathNameIntoArray(t *testing.T) {
	c := mustNew(t, Config{Rules: []Rule{
		{Tool: "t", Arg: &ArgMatcher{Path: "items.first.name", Glob: "*"}, Decision: Allow},
		{Tool: "*", Decision: Deny},
	}}, Options{})
	if d := check(t, c, "t", `{"items":[{"name":"x"}]}`); d.Allowed || d.Source != "rule 2" {
		t.Errorf("%+v, want denied by rule 2", d)
	}
}

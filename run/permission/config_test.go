package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	src := `# project settings
[ptc]
mode = "off"

[permissions]
gate_timeout_s = 12

[permissions.modes]
http_fetch = "gated"
file_read = "always"

[[permissions.rules]]
tool = "http_fetch"
arg = { path = "url", glob = "https://internal.example.com/*" }
decision = "deny"

[[permissions.rules]]
tool = "http_*"
decision = "allow"
`
	cfg, ds := ParseConfig("agentlab.toml", []byte(src))
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	if len(cfg.Rules) != 2 || cfg.Rules[0].Decision != Deny || cfg.Rules[0].Arg.Glob != "https://internal.example.com/*" ||
		cfg.Modes["http_fetch"] != ModeGated || cfg.Modes["file_read"] != ModeAlways || cfg.GateTimeoutS != 12 {
		t.Errorf("cfg = %+v", cfg)
	}
	c := mustNew(t, *cfg, Options{Gate: func(context.Context, string, json.RawMessage) (string, error) { return "allow", nil }})
	d, _ := c.Check(context.Background(), "http_fetch", json.RawMessage(`{"url":"https://internal.example.com/x"}`))
	if d.Allowed || d.Source != "rule 1" {
		t.Errorf("%+v", d)
	}
	if cfg, ds := ParseConfig("agentlab.toml", []byte("[ptc]\nmode='on'\n")); len(ds) != 0 || len(cfg.Rules) != 0 {
		t.Errorf("no table: %+v %v", cfg, ds)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, src, want string // want: "line:col: severity code message" (a substring)
	}{
		{"syntax", "[permissions\n", "1:"},
		{"bad decision", "[permissions]\n\n[[permissions.rules]]\ntool = \"a\"\ndecision = \"allow\"\n\n[[permissions.rules]]\ntool = \"b\"\ndecision = \"alow\"\n",
			`9:1: error E-PERM-RULE permissions rule 2: decision "alow" is not allow, deny or ask`},
		{"unknown rule key", "[[permissions.rules]]\ntool = \"a\"\ndecison = \"allow\"\n", `3:1: error E-PERM-RULE permissions rule 1: unknown key "decison" (known: tool, decision, arg)`},
		{"bad arg", "[[permissions.rules]]\ntool = \"a\"\ndecision = \"allow\"\narg = {path = \"u\", glb = \"x\"}\n", "4:1: error E-PERM-RULE permissions rule 1: unknown key arg.glb"},
		{"indented key", "[[permissions.rules]]\n  tool = \"\"\n  decision = \"allow\"\n", `2:3: error E-PERM-RULE permissions rule 1: tool is empty`},
		{"inline rules", "[permissions]\nrules = [{tool = \"a\", decision = \"no\"}]\n", `1:1: error E-PERM-RULE permissions rule 1: decision "no"`},
		{"rule not a table", "[permissions]\nrules = [3]\n", `1:1: error E-PERM-RULE permissions rule 1: is not a table`},
		{"bad mode", "[permissions.modes]\nhttp_fetch = \"sometimes\"\n", `2:1: error E-PERM-MODE approval mode of http_fetch is sometimes, not ask, gated or always`},
		{"unknown key", "[permissions]\nrule = []\n", `2:1: error E-PERM-CONFIG unknown key permissions.rule`},
		{"bad timeout", "[permissions]\ngate_timeout_s = -1\n", `2:1: error E-PERM-CONFIG permissions.gate_timeout_s is -1`},
		{"quoted key", "# c\n[permissions.modes]\n\"http_fetch\" = 1\n", `3:1: error E-PERM-MODE approval mode of http_fetch`},
		{"not a table", "permissions = 3\n", "1:1: error E-PERM-CONFIG permissions is not a table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ds := ParseConfig("agentlab.toml", []byte(tt.src))
			if cfg != nil || len(ds) == 0 {
				t.Fatalf("accepted: %+v", cfg)
			}
			got := ds[0].String()
			if !strings.Contains(got, tt.want) || ds[0].Fix == "" || ds[0].File != "agentlab.toml" {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestMemoryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "permissions.json")
	scope := Scope{Project: "/p/one", KeyFile: filepath.Join(dir, "key")}
	m, warn, err := LoadMemory(path, scope)
	if err != nil || warn != "" {
		t.Fatal(err, warn)
	}
	k1, _ := KeyOf("b_tool", json.RawMessage(`{"x":1}`))
	k2, _ := KeyOf("a_tool", nil)
	m.AlwaysAllow(k1)
	m.AlwaysDeny(k1)
	m.AlwaysAllow(k2)
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, warn, err := LoadMemory(path, scope)
	if err != nil || warn != "" {
		t.Fatal(err, warn)
	}
	if back.Lookup(k1) != Deny || back.Lookup(k2) != Allow {
		t.Errorf("round trip lost decisions")
	}
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(back)
	if string(a) != string(b) || !strings.Contains(string(a), `"always_allow":[{"tool":"a_tool"`) {
		t.Errorf("not stable: %s vs %s", a, b)
	}
	file, _ := os.ReadFile(path)
	if strings.Contains(string(file), `"x"`) {
		t.Error("arguments stored in clear")
	}
}

// TestMemoryOtherProjectAndHandEdit is someone who shares the data
// directory: a decision remembered in one project is not used in another,
// and an "allow" added to the file by hand (or the file's signature
// forged without the key) makes the whole file ignored, saying why.
func TestMemoryOtherProjectAndHandEdit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "permissions.json")
	key := filepath.Join(dir, "key")
	one := Scope{Project: "/p/one", KeyFile: key}
	m, _, _ := LoadMemory(path, one)
	k, _ := KeyOf("file_read", json.RawMessage(`{"path":"secrets/key"}`))
	m.AlwaysAllow(k)
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	other, warn, err := LoadMemory(path, Scope{Project: "/p/two", KeyFile: key})
	if err != nil || warn != "" || other.Lookup(k) != "" {
		t.Fatalf("another project sees the decision: %v %q %v", other.Lookup(k), warn, err)
	}
	// Saving the other project keeps the first one's decisions.
	other.AlwaysDeny(k)
	if err := other.Save(path); err != nil {
		t.Fatal(err)
	}
	if again, _, _ := LoadMemory(path, one); again.Lookup(k) != Allow {
		t.Error("saving one project lost another's decisions")
	}
	// A hand edit: move the deny of project two into an allow.
	b, _ := os.ReadFile(path)
	edited := strings.Replace(string(b), `"always_deny": [`, `"always_allow": [], "x": [`, 1)
	edited = strings.Replace(edited, `"/p/two": {`, `"/p/two": {"always_allow": [{"tool":"file_read","args":"`+k.Args.String()+`"}],`, 1)
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []Scope{one, {Project: "/p/two", KeyFile: key}} {
		got, warn, err := LoadMemory(path, sc)
		if err != nil {
			t.Fatal(err)
		}
		if got.Lookup(k) != "" || !strings.Contains(warn, "signature does not match") {
			t.Errorf("%s: a hand-edited file was used (%v) or not reported (%q)", sc.Project, got.Lookup(k), warn)
		}
	}
	// A file written in the old unsigned form is not used either.
	if err := os.WriteFile(path, []byte(`{"always_deny":[],"always_allow":[{"tool":"file_read","args":"`+k.Args.String()+`"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, warn, _ := LoadMemory(path, one); got.Lookup(k) != "" || !strings.Contains(warn, "older form") {
		t.Errorf("an unsigned file was used: %v %q", got.Lookup(k), warn)
	}
}

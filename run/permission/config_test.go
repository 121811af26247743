package permission

import (
	"context"
	"encoding/json"
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
	path := filepath.Join(t.TempDir(), "permissions.json")
	m, err := LoadMemory(path)
	if err != nil {
		t.Fatal(err)
	}
	k1, _ := KeyOf("b_tool", json.RawMessage(`{"x":1}`))
	k2, _ := KeyOf("a_tool", nil)
	m.AlwaysAllow(k1)
	m.AlwaysDeny(k1)
	m.AlwaysAllow(k2)
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadMemory(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Lookup(k1) != Deny || back.Lookup(k2) != Allow {
		t.Errorf("round trip lost decisions")
	}
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(back)
	if string(a) != string(b) || !strings.Contains(string(a), `"always_allow":[{"tool":"a_tool"`) {
		t.Errorf("not stable: %s vs %s", a, b)
	}
	if strings.Contains(string(a), `"x"`) {
		t.Error("arguments stored in clear")
	}
}

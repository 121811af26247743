package ptc

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		file  *FileConfig
		check func(t *testing.T, c Config)
		warn  string // substring of the only warning; "" means no warning
	}{
		{"defaults", nil, nil, func(t *testing.T, c Config) {
			want := Config{Mode: ModeOff, RolloutPercent: 100, RolloutSalt: DefaultSalt}
			if !reflect.DeepEqual(c, want) {
				t.Fatalf("got %+v, want %+v", c, want)
			}
		}, ""},
		{"mode trimmed and lowercased", map[string]string{EnvMode: "  Partial \t"}, nil, func(t *testing.T, c Config) {
			if c.Mode != ModePartial {
				t.Fatalf("mode %q", c.Mode)
			}
		}, ""},
		{"invalid mode is off", map[string]string{EnvMode: "yes"}, nil, func(t *testing.T, c Config) {
			if c.Mode != ModeOff {
				t.Fatalf("mode %q", c.Mode)
			}
		}, "valid: off, on, partial"},
		{"lists split and trimmed", map[string]string{EnvUserAllowlist: " alice,, bob ,", EnvToolsetAllowlist: "a", EnvToolsetBlocklist: ",b , c"}, nil, func(t *testing.T, c Config) {
			if !reflect.DeepEqual(c.UserAllowlist, []string{"alice", "bob"}) || !reflect.DeepEqual(c.ToolsetAllowlist, []string{"a"}) || !reflect.DeepEqual(c.ToolsetBlocklist, []string{"b", "c"}) {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"rollout number", map[string]string{EnvRolloutPercent: " 12.5 "}, nil, func(t *testing.T, c Config) {
			if c.RolloutPercent != 12.5 || c.RolloutInvalid {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"rollout not a number", map[string]string{EnvRolloutPercent: "half"}, nil, func(t *testing.T, c Config) {
			if !c.RolloutInvalid {
				t.Fatalf("%+v", c)
			}
		}, "not a number"},
		{"rollout NaN", map[string]string{EnvRolloutPercent: "NaN"}, nil, func(t *testing.T, c Config) {
			if !c.RolloutInvalid {
				t.Fatalf("%+v", c)
			}
		}, "not a number"},
		{"salt", map[string]string{EnvRolloutSalt: "s2"}, nil, func(t *testing.T, c Config) {
			if c.RolloutSalt != "s2" {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"debug legacy true", map[string]string{EnvDebug: "TRUE"}, nil, func(t *testing.T, c Config) {
			if c.Debug != DebugOptIn || !c.DebugConfigured {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"debug opt-out", map[string]string{EnvDebug: " Opt-Out "}, nil, func(t *testing.T, c Config) {
			if c.Debug != DebugOptOut {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"debug invalid", map[string]string{EnvDebug: "verbose"}, nil, func(t *testing.T, c Config) {
			if c.Debug != "" || !c.DebugConfigured {
				t.Fatalf("%+v", c)
			}
		}, "no debug filter applies"},
		{"file used when env unset", nil, &FileConfig{Path: "agentlab.toml", Mode: "on", ToolsetBlocklist: "x,y", RolloutPercent: "5", Debug: "opt-in"}, func(t *testing.T, c Config) {
			if c.Mode != ModeOn || !reflect.DeepEqual(c.ToolsetBlocklist, []string{"x", "y"}) || c.RolloutPercent != 5 || c.Debug != DebugOptIn {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"env wins over file", map[string]string{EnvMode: "partial", EnvRolloutPercent: "80"}, &FileConfig{Mode: "on", RolloutPercent: "5"}, func(t *testing.T, c Config) {
			if c.Mode != ModePartial || c.RolloutPercent != 80 {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"invalid file value names the file", nil, &FileConfig{Path: "/p/agentlab.toml", Mode: "sometimes"}, func(t *testing.T, c Config) {
			if c.Mode != ModeOff {
				t.Fatalf("%+v", c)
			}
		}, "[ptc] mode in /p/agentlab.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := ConfigFromEnv(env(tt.env), tt.file)
			if !reflect.DeepEqual(warns, c.Warnings) {
				t.Fatalf("returned warnings %v differ from Config.Warnings %v", warns, c.Warnings)
			}
			switch {
			case tt.warn == "" && len(warns) > 0:
				t.Fatalf("unexpected warnings %v", warns)
			case tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.warn)):
				t.Fatalf("warnings %v, want one containing %q", warns, tt.warn)
			}
			tt.check(t, c)
		})
	}
}

func TestParseFileConfig(t *testing.T) {
	data := []byte(`
name = "x"
[ptc]
mode = "partial"
user_allowlist = ["alice", "bob"]
toolset_blocklist = "secret, hr"
rollout_percent = 25
debug = true
colour = "red"
`)
	f, err := ParseFileConfig("agentlab.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode != "partial" || f.UserAllowlist != "alice,bob" || f.ToolsetBlocklist != "secret, hr" || f.RolloutPercent != "25" || f.Debug != "true" {
		t.Fatalf("%+v", f)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], `"colour"`) {
		t.Fatalf("warnings %v", f.Warnings)
	}
	c, _ := ConfigFromEnv(env(nil), f)
	if c.Debug != DebugOptIn || c.RolloutPercent != 25 || !reflect.DeepEqual(c.UserAllowlist, []string{"alice", "bob"}) {
		t.Fatalf("%+v", c)
	}

	if f, err := ParseFileConfig("agentlab.toml", []byte("[ptc]\ndebug = false\n")); err != nil || f.Debug != "" {
		t.Fatalf("debug = false: %+v %v", f, err)
	}
	if f, err := ParseFileConfig("agentlab.toml", []byte("name = 1\n")); err != nil || f != nil {
		t.Fatalf("no [ptc] table: %+v %v", f, err)
	}
	if _, err := ParseFileConfig("agentlab.toml", []byte("[ptc\n")); err == nil || !strings.Contains(err.Error(), "agentlab.toml:1:") {
		t.Fatalf("syntax error: %v", err)
	}
}

func TestFindConfigFileWalksUp(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/agentlab.toml", []byte("[ptc]\nmode = \"on\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := dir + "/a/b"
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFileConfig(sub)
	if err != nil || f == nil || f.Mode != "on" {
		t.Fatalf("%+v %v", f, err)
	}
}

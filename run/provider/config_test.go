package provider

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseConfigFull(t *testing.T) {
	data, err := os.ReadFile("testdata/config/full.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, diags := ParseConfig("agentlab.toml", data, true)
	if len(diags) != 0 || c == nil {
		t.Fatalf("diags %v", diags)
	}
	want := Config{
		Remote: RemoteOptions{OpenAIBaseURL: "http://localhost:11434/v1", AnthropicBaseURL: "https://api.anthropic.com",
			Timeout: 5 * time.Minute, IdleTimeout: 90 * time.Second, MaxAttempts: 3, BaseDelay: 500 * time.Millisecond,
			MaxDelay: 20 * time.Second, MaxRetryAfter: 2 * time.Minute},
		Prices: map[string]Price{"gpt-4o": {InputPerMTok: 2.5, OutputPerMTok: 10}, "deepseek-chat": {InputPerMTok: 0.27, OutputPerMTok: 1.1}, "claude-sonnet-4-5": {InputPerMTok: 3, OutputPerMTok: 15}},
	}
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("got\n%+v\nwant\n%+v", *c, want)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, src string
		project   bool
		want      []string // "line:col code" and a fragment of message or fix
	}{
		{"syntax", "[providers\n", false, []string{"1:11 E-PROVCFG-TOML not valid TOML"}},
		{"unknown keys", "[providers]\ntimeot = \"1m\"\n[providers.openai]\nbase_ur = \"x\"\n[providers.prices.m]\ninput = 1\n", false,
			[]string{`2:1 E-PROVCFG-KEY did you mean "timeout"?`, `4:1 E-PROVCFG-KEY did you mean "base_url"?`, `5:1 E-PROVCFG-VALUE price of model "m" is incomplete`, `6:1 E-PROVCFG-KEY allowed keys are input_per_mtok, output_per_mtok`}},
		{"bare number duration", "[providers]\ntimeout = 30\n", false, []string{`2:11 E-PROVCFG-VALUE write a duration such as "10m"`}},
		{"bad duration", "[providers]\nidle_timeout = \"2 minutes\"\n", false, []string{`2:1 E-PROVCFG-VALUE not a positive duration`}},
		{"negative duration", "[providers]\nmax_delay = \"-1s\"\n", false, []string{`2:1 E-PROVCFG-VALUE "-1s" is not a positive duration`}},
		{"attempts type", "[providers]\nmax_attempts = \"four\"\n", false, []string{`2:16 E-PROVCFG-VALUE a whole number of at least 1`}},
		{"attempts range", "[providers]\n  max_attempts = 0\n", false, []string{`2:3 E-PROVCFG-VALUE providers.max_attempts is 0`}},
		{"price not a table", "[providers.prices]\ngpt = 3\n", false, []string{`2:7 E-PROVCFG-VALUE input_per_mtok = …`}},
		{"price incomplete", "[providers.prices]\n\"gpt-4o\" = { input_per_mtok = 1 }\n", false, []string{`2:1 E-PROVCFG-VALUE price of model "gpt-4o" is incomplete`}},
		{"price negative", "[providers.prices.gpt]\ninput_per_mtok = -1\noutput_per_mtok = 1\n", false, []string{`1:1 E-PROVCFG-VALUE price of model "gpt"`}},
		{"cache price negative", "[providers.prices.claude]\ninput_per_mtok = 3\noutput_per_mtok = 15\ncache_read_per_mtok = -0.3\n", false, []string{`1:1 E-PROVCFG-VALUE a cache price of model "claude" is negative`}},
		{"key in project file", "[providers.openai]\napi_key = \"sk-abcdefgh\"\n", true, []string{`2:1 W-PROVCFG-SECRET move it to OPENAI_API_KEY`}},
		{"key in user file", "[providers.openai]\napi_key = \"sk-abcdefgh\"\n", false, nil},
		{"other tables ignored", "[ptc]\nmode = \"x\"\n[other]\nz = 1\n", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, diags := ParseConfig("agentlab.toml", []byte(tt.src), tt.project)
			if len(diags) != len(tt.want) {
				t.Fatalf("diags %v, want %d", diags, len(tt.want))
			}
			for i, d := range diags.Sorted() {
				got := fmt.Sprintf("%d:%d %s %s | %s", d.Line, d.Col, d.Code, d.Message, d.Fix)
				pos, frag, _ := strings.Cut(tt.want[i], " ")
				code, frag, _ := strings.Cut(frag, " ")
				if !strings.HasPrefix(got, pos+" "+code+" ") || !strings.Contains(got, frag) || d.File != "agentlab.toml" || d.Fix == "" {
					t.Errorf("diag %q, want %q", got, tt.want[i])
				}
			}
			if diags.HasErrors() != (c == nil) {
				t.Errorf("config %v with errors %v", c, diags.HasErrors())
			}
			if strings.Contains(fmt.Sprint(diags), "sk-abcdefgh") {
				t.Error("a diagnostic repeats the key")
			}
		})
	}
}

func TestLoadConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "agentlab.toml")
	user := filepath.Join(dir, "config.toml")
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(project, "[providers]\nmax_attempts = 2\n[providers.openai]\nbase_url = \"http://localhost:8000/v1\"\n[providers.prices]\nm = { input_per_mtok = 1, output_per_mtok = 2 }\n")
	write(user, "[providers]\nmax_attempts = 9\ntimeout = \"1m\"\n[providers.openai]\nbase_url = \"https://other\"\napi_key = \"user-key\"\n[providers.prices]\nm = { input_per_mtok = 5, output_per_mtok = 5 }\nn = { input_per_mtok = 3, output_per_mtok = 4 }\n")
	c, diags := LoadConfig(project, user)
	// The project file wins, but for the user's base_url: the user's key
	// goes only where the user sends it.
	if len(diags) != 1 || diags[0].Code != CodeConfigBaseURL {
		t.Fatal(diags)
	}
	opts := Options{Remote: RemoteOptions{Timeout: time.Second}, Prices: map[string]Price{"n": {InputPerMTok: 7, OutputPerMTok: 7}}}
	c.Apply(&opts)
	r := opts.Remote
	if r.MaxAttempts != 2 || r.OpenAIBaseURL != "https://other" || r.OpenAIKey != "user-key" || r.Timeout != time.Second {
		t.Errorf("remote %+v", r)
	}
	if want := map[string]Price{"m": {InputPerMTok: 1, OutputPerMTok: 2}, "n": {InputPerMTok: 7, OutputPerMTok: 7}}; !reflect.DeepEqual(opts.Prices, want) {
		t.Errorf("prices %v, want %v", opts.Prices, want)
	}
	if c, diags := LoadConfig(filepath.Join(dir, "missing.toml"), ""); c == nil || len(diags) != 0 {
		t.Errorf("missing files: %v %v", c, diags)
	}
	write(user, "[providers]\ntimeout = 1\n")
	if c, diags := LoadConfig("", user); c != nil || !diags.HasErrors() {
		t.Errorf("bad user file: %v %v", c, diags)
	}
}

func TestUserConfigFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/y")
	if got := UserConfigFile(); got != "/x/y/agentlab/config.toml" {
		t.Errorf("got %q", got)
	}
}

// FuzzParseConfig checks that no file makes the config reader panic and
// that every rejection is a positioned, coded diagnostic with a fix.
func FuzzParseConfig(f *testing.F) {
	files, _ := filepath.Glob("testdata/config/*.toml")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("[providers]\ntimeout = 30\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, diags := ParseConfig("c.toml", data, true)
		for _, d := range diags {
			if d.Code == "" || d.Message == "" || d.Fix == "" || d.Line < 1 || d.Col < 1 {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if (c == nil) != diags.HasErrors() {
			t.Fatalf("config %v, errors %v", c, diags.HasErrors())
		}
	})
}

func TestNewReadsConfigFiles(t *testing.T) {
	clearRemoteEnv(t)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agentlab", "config.toml")
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("[providers.openai]\napi_key = \"from-user-config\"\nbase_url = \"https://user.example/v1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	sub := filepath.Join(project, "flows")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "agentlab.toml"), []byte("[providers.openai]\nbase_url = \"https://project.example/v1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	p, err := New("openai", Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := p.(*OpenAI)
	// A project file (planted up the tree, or just committed) cannot send
	// the user's key to its own server.
	if o.r.key != "from-user-config" || o.r.endpoint.String() != "https://user.example/v1/chat/completions" {
		t.Errorf("key from user config went to %s", o.r.endpoint)
	}
	if w := ConfigWarnings(sub); len(w) != 1 || w[0].Code != CodeConfigBaseURL {
		t.Errorf("the unused project base_url must be warned about: %v", w)
	}
	// With a base directory (the flow's), its nearest agentlab.toml is
	// the project file, wherever the command runs from; its base_url is
	// used with a key it holds itself.
	if err := os.WriteFile(user, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "agentlab.toml"), []byte("[providers.openai]\nbase_url = \"https://flow.example/v1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := ConfigWarnings(other); len(w) != 0 {
		t.Errorf("warnings without a key in the project file: %v", w)
	}
	if err := os.WriteFile(filepath.Join(other, "agentlab.toml"), []byte("[providers.openai]\nbase_url = \"https://flow.example/v1\"\napi_key = \"sk-project\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = New("openai", Options{BaseDir: other})
	if err != nil || p.(*OpenAI).r.endpoint.Host != "flow.example" {
		t.Errorf("project file of the base directory: %v", err)
	}
	// The same file with the key in the environment: the key does not go
	// to the project's server.
	t.Setenv("OPENAI_API_KEY", "sk-env")
	p, err = New("openai", Options{BaseDir: other})
	if err != nil || p.(*OpenAI).r.endpoint.Host == "flow.example" {
		t.Errorf("the environment's key went to the project's base_url: %v", err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	if err := os.WriteFile(filepath.Join(other, "agentlab.toml"), []byte("[providers.openai]\napi_key = \"sk-x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := ConfigWarnings(other); len(w) != 1 || w[0].Code != CodeConfigSecret {
		t.Errorf("a key in the project file must be warned about: %v", w)
	}
	// Options set by the caller win over the files.
	p, err = New("openai", Options{Remote: RemoteOptions{OpenAIBaseURL: "https://flag.example/v1", OpenAIKey: "sk-flag"}})
	if err != nil || p.(*OpenAI).r.endpoint.Host != "flag.example" {
		t.Errorf("caller's base URL: %v", err)
	}
	// A broken file stops New with positioned diagnostics.
	if err := os.WriteFile(filepath.Join(project, "agentlab.toml"), []byte("[providers]\nmax_attempts = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New("anthropic", Options{})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "agentlab.toml:2:1: error E-PROVCFG-VALUE") || !strings.Contains(err.Error(), "fix: ") {
		t.Errorf("err = %v", err)
	}
	// The mock never reads them.
	if _, err := New("mock", Options{}); err != nil {
		t.Error(err)
	}
}

// Cache prices are read when given and left to the provider's default
// rate (nil) when not.
func TestParseConfigCachePrices(t *testing.T) {
	c, diags := ParseConfig("agentlab.toml", []byte("[providers.prices.claude]\ninput_per_mtok = 3\noutput_per_mtok = 15\ncache_read_per_mtok = 0.3\n"), false)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	p := c.Prices["claude"]
	if p.CacheReadPerMTok == nil || *p.CacheReadPerMTok != 0.3 || p.CacheWritePerMTok != nil {
		t.Fatalf("price %+v", p)
	}
	u := priceUsageAt(Usage{InputTokens: 1000, CacheReadTokens: 600, CacheWriteTokens: 100, OutputTokens: 10}, c.Prices, "claude", "", anthropicCacheRates)
	// 300 plain at 3, 600 read at 0.3, 100 written at 3 × 1.25, 10 out at 15.
	want := (300*3 + 600*0.3 + 100*3.75 + 10*15) / 1e6
	if d := u.CostUSD - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("cost %v, want %v", u.CostUSD, want)
	}
}

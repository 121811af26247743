package tools

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFetchConfig(t *testing.T) {
	cfg, ds := ParseFetchConfig("agentlab.toml", []byte(`[permissions]
gate_timeout_s = 5

[http_fetch]
allow = ["api.example.com", "*.example.org:8443"]
allow_nets = ["10.1.2.7/24"]
max_bytes = 4096
timeout_s = 5
`))
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	if !slices.Equal(cfg.Allow, []string{"api.example.com", "*.example.org:8443"}) ||
		!slices.Equal(cfg.AllowNets, []netip.Prefix{netip.MustParsePrefix("10.1.2.0/24")}) ||
		cfg.MaxBytes != 4096 || cfg.Timeout != 5*time.Second {
		t.Errorf("config %+v", cfg)
	}
	// No table: the defaults.
	if cfg, ds := ParseFetchConfig("agentlab.toml", []byte("[providers]\n")); len(ds) != 0 || cfg.Allow != nil || cfg.MaxBytes != 0 {
		t.Errorf("no table: %+v %v", cfg, ds)
	}
}

func TestParseFetchConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"not a table", "http_fetch = 3\n", "agentlab.toml:1:1: error E-TOOL-FETCHCFG http_fetch is not a table"},
		{"unknown key", "[http_fetch]\nallw = []\n", `agentlab.toml:2:1: error E-TOOL-FETCHCFG unknown key "allw" in [http_fetch]`},
		{"bad pattern", "[http_fetch]\n  allow = [\"http://x.com/\"]\n", "agentlab.toml:2:3: error E-TOOL-FETCHCFG http_fetch.allow: allow-list entry"},
		{"bad port", "[http_fetch]\nallow = [\"x.com:99999\"]\n", "port \"99999\""},
		{"not strings", "[http_fetch]\nallow = [1]\n", "http_fetch.allow is not a list of strings"},
		{"bad net", "[http_fetch]\nallow_nets = [\"10.1.2\"]\n", `"10.1.2" is not an address range`},
		{"bytes", "[http_fetch]\nmax_bytes = 0\n", "agentlab.toml:2:1: error E-TOOL-FETCHCFG http_fetch.max_bytes is 0"},
		{"timeout type", "[http_fetch]\ntimeout_s = \"20s\"\n", "http_fetch.timeout_s is 20s"},
		{"toml", "[http_fetch\n", "E-TOOL-FETCHCFG not valid TOML"},
	} {
		_, ds := ParseFetchConfig("agentlab.toml", []byte(tc.src))
		if !ds.HasErrors() || !strings.Contains(ds[0].String(), tc.want) || ds[0].Fix == "" {
			t.Errorf("%s: %v, want %q with a fix", tc.name, ds, tc.want)
		}
	}
	_, ds := ParseFetchConfig("agentlab.toml", []byte("[http_fetch]\nalow = []\n"))
	if len(ds) != 1 || !strings.Contains(ds[0].Fix, `did you mean "allow"?`) {
		t.Errorf("did-you-mean: %v", ds)
	}
}

func FuzzParseFetchConfig(f *testing.F) {
	f.Add("[http_fetch]\nallow = [\"a.com\"]\nmax_bytes = 10\n")
	f.Add("http_fetch = []\n")
	f.Add("[http_fetch]\nallow_nets = [\"::1/128\"]\ntimeout_s = 9999999\n")
	f.Fuzz(func(t *testing.T, src string) {
		cfg, ds := ParseFetchConfig("f.toml", []byte(src))
		for _, d := range ds {
			if d.Code == "" || d.Line < 1 || d.Col < 1 || d.Fix == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if !ds.HasErrors() {
			if _, err := NewFetcher(cfg); err != nil {
				t.Fatalf("a config without errors is refused: %v", err)
			}
		}
	})
}

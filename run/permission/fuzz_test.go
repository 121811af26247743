package permission

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentlab/agentlab/canon"
)

// FuzzParseConfig: no input makes the parser panic, and a configuration it
// accepts always builds a checker that can decide a call.
func FuzzParseConfig(f *testing.F) {
	f.Add("[[permissions.rules]]\ntool = \"http_*\"\ndecision = \"allow\"\narg = {path = \"url\", glob = \"https://*\"}\n", `{"url":"https://a"}`)
	f.Add("[permissions.modes]\nfile_read = \"always\"\n", `{}`)
	f.Add("[permissions]\nrules = [{tool = \"*\", decision = \"deny\", arg = {path = \"a[0].b\", regexp = \"^x\"}}]\n", `{"a":[{"b":"xy"}]}`)
	f.Fuzz(func(t *testing.T, src, args string) {
		cfg, ds := ParseConfig("agentlab.toml", []byte(src))
		if cfg == nil {
			if len(ds) == 0 {
				t.Fatal("refused without a diagnostic")
			}
			return
		}
		cfg.Modes = nil // gated needs a gate; the rules are what is fuzzed
		c, err := New(*cfg, Options{})
		if err != nil {
			t.Fatalf("accepted config does not build: %v", err)
		}
		// The engine hands the checker only arguments it could put in
		// canonical form (engine.parseArgs refuses the rest, "1E700"
		// among them, before any permission check).
		canonical, err := canon.Canonicalize([]byte(args))
		if err != nil {
			return
		}
		if _, err := c.Check(context.Background(), "http_fetch", json.RawMessage(canonical)); err != nil {
			t.Fatal(err)
		}
	})
}

package ptc

import (
	"encoding/json"
	"testing"
)

// FuzzRenderSDK renders arbitrary JSON schemas: rendering never panics,
// and the same input always gives the same text.
func FuzzRenderSDK(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"type":"array","items":{"type":"integer"}}`)
	f.Add(`{"anyOf":[{"type":"object","properties":{"x":{"enum":[1,"a",null]}}},{"type":"null"}]}`, `{"type":["string","null"]}`)
	f.Add(`{"properties":{"*/":{"description":"\"\"\" */"}}}`, `{"const":2.5}`)
	f.Fuzz(func(t *testing.T, args, output string) {
		var a, o map[string]any
		_ = json.Unmarshal([]byte(args), &a)
		_ = json.Unmarshal([]byte(output), &o)
		tools := []ToolInfo{{Name: "t", Description: args, Args: a, Output: o}}
		for _, lang := range []string{LangTypeScript, LangPython} {
			if RenderSDK(tools, lang) != RenderSDK(tools, lang) {
				t.Fatal("rendering is not deterministic")
			}
		}
	})
}

// FuzzDecide checks the chain's central promise with arbitrary PTC_DEBUG
// values and titles: the debug filter can remove PTC but never grant it.
func FuzzDecide(f *testing.F) {
	f.Add("on", "", "opt-in", "useptc", "alice", "50")
	f.Add("partial", "bob", "true", "UsePTC", "alice", "")
	f.Add("off", "alice", "opt-out", "", "alice", "100")
	f.Fuzz(func(t *testing.T, mode, allow, debug, title, user, rollout string) {
		base := map[string]string{EnvMode: mode, EnvUserAllowlist: allow, EnvRolloutPercent: rollout}
		cfg, _ := ConfigFromEnv(env(base), nil)
		without := Decide(cfg, user, []string{"sales"}, title)
		base[EnvDebug] = debug
		cfg, _ = ConfigFromEnv(env(base), nil)
		with := Decide(cfg, user, []string{"sales"}, title)
		if with.Enabled && !without.Enabled {
			t.Fatalf("PTC_DEBUG=%q enabled PTC: %+v", debug, with)
		}
	})
}

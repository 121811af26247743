package provider

import (
	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/run/redact"
)

// RegisterEndpointStrings hands every string of the [providers.openai] and
// [providers.anthropic] tables of a config file's bytes to package redact
// as soon as the file is read, whether or not it parses: the keys (a
// misspelt one too, "api_kye", whose diagnostic quotes its line) and the
// credentials the base URLs carry. The warning about a key written in the
// project file and doctor's description of the base URLs are then printed
// redacted. (ParseConfig itself has no side effect, so that it can be
// fuzzed.)
func RegisterEndpointStrings(data []byte) {
	var doc struct {
		Providers map[string]any `toml:"providers"`
	}
	if toml.Unmarshal(data, &doc) != nil {
		return
	}
	for _, name := range []string{"openai", "anthropic"} {
		t, _ := doc.Providers[name].(map[string]any)
		for k, v := range t {
			s, ok := v.(string)
			if !ok {
				continue
			}
			if k == "base_url" {
				redact.AddURL(s)
				continue
			}
			redact.Add(s)
		}
	}
}

package provider

import (
	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/run/redact"
)

// RegisterSecrets hands the keys of a config file, and the credentials
// its base URLs carry, to package redact as soon as the file is read:
// the warning about a key written in the project file quotes the key's
// line, doctor describes the base URLs, and both are printed through the
// redacting writers. (ParseConfig itself has no side effect, so that it
// can be fuzzed.)
func (c *Config) RegisterSecrets() {
	if c == nil {
		return
	}
	r := c.Remote
	redact.Add(r.OpenAIKey)
	redact.Add(r.AnthropicKey)
	redact.AddURL(r.OpenAIBaseURL)
	redact.AddURL(r.AnthropicBaseURL)
}

// RegisterEndpointStrings hands every string of the [providers.openai] and
// [providers.anthropic] tables of a config file's bytes to package redact,
// whether or not the file parses: a misspelt key ("api_kye") still holds
// a key, the diagnostic about it quotes its line, and a file with an error
// yields no Config for RegisterSecrets to read.
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

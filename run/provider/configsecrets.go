package provider

import "github.com/agentlab/agentlab/run/redact"

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

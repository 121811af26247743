package tools

import (
	"errors"

	"github.com/agentlab/agentlab/run/redact"
)

// redactResult replaces every secret value (package redact) in what a tool
// returns, before the engine, a model or the event log sees it: a server
// that echoes the Authorization header it was sent, a file that happens to
// hold a key, an MCP server that prints its token. The error of a failed
// call is redacted the same way.
func redactResult(res *Result, err error) (*Result, error) {
	if !redact.Active() {
		return res, err
	}
	if err != nil && redact.Contains(err.Error()) {
		err = errors.New(redact.String(err.Error()))
	}
	if res == nil {
		return res, err
	}
	out := *res
	out.Text = redact.String(res.Text)
	out.Value = redact.Any(res.Value)
	if m, ok := redact.Any(res.Meta).(map[string]any); ok {
		out.Meta = m
	}
	return &out, err
}

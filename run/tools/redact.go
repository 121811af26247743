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
		err = redactError(err)
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

// redactError returns err with its secrets replaced. A refusal keeps its
// type, with every field redacted, so that the engine still tells a
// refused call (and its code) from a failed one; any other error becomes
// its redacted text, since a wrapped original would hand the secret to
// whoever unwraps it.
func redactError(err error) error {
	var rf *Refusal
	if errors.As(err, &rf) && redact.String(rf.Error()) == redact.String(err.Error()) {
		return &Refusal{Tool: redact.String(rf.Tool), Code: redact.String(rf.Code), Reason: redact.String(rf.Reason), Fix: redact.String(rf.Fix)}
	}
	return errors.New(redact.String(err.Error()))
}

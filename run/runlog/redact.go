package runlog

import (
	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/run/redact"
)

// Everything a run stores passes through here on its way to disk: event
// data, artifacts and run.json. A secret value (package redact) that
// reached any of them — a tool result echoing a header, a provider error
// quoting its key, an output built from either — is replaced before it is
// hashed, so the chain, the seal and the pages never hold it.

// redactEventData returns data with every secret value replaced, or data
// itself when it holds none.
func redactEventData(data any) any { return redact.Any(data) }

// redactArtifact returns b with every secret value replaced: JSON value by
// value (and canonical again), other bytes as they are.
func redactArtifact(b []byte) []byte {
	if !redact.Active() {
		return b
	}
	out, err := redact.JSON(b, canon.Marshal)
	if err != nil {
		return redact.Bytes(b)
	}
	return out
}

// redactRecord returns the JSON of a record with every secret value replaced.
func redactRecord(b []byte) []byte {
	if !redact.Active() {
		return b
	}
	out, err := redact.JSON(b, MarshalReadable)
	if err != nil {
		return redact.Bytes(b)
	}
	return out
}

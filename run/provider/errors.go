package provider

import (
	"errors"
	"fmt"
)

// CallError is a failed model call. Retryable says whether trying the same
// call again may succeed (a rate limit, a timeout) or not (a bad request);
// the engine's retry policy looks at it through IsRetryable.
type CallError struct {
	Provider  string
	Node      string
	Call      int
	Message   string
	Retryable bool
}

func (e *CallError) Error() string {
	kind := "permanent"
	if e.Retryable {
		kind = "retryable"
	}
	return fmt.Sprintf("provider %s: node %q call %d failed (%s): %s", e.Provider, e.Node, e.Call, kind, e.Message)
}

// IsRetryable reports whether err is a provider failure that may succeed
// when the call is made again.
func IsRetryable(err error) bool {
	var ce *CallError
	return errors.As(err, &ce) && ce.Retryable
}

// SpentError is a failed call that the server billed all the same: an
// answer refused after it arrived (not valid against the output schema,
// cut off), or attempts that failed before a retry that failed too. Usage
// is what those attempts cost, so that the run's totals and budgets count
// them.
type SpentError struct {
	Err   error
	Usage Usage
}

func (e *SpentError) Error() string { return e.Err.Error() }
func (e *SpentError) Unwrap() error { return e.Err }

// billed attaches u to err when it is not zero.
func billed(err error, u Usage) error {
	if err == nil || u == (Usage{}) {
		return err
	}
	return &SpentError{Err: err, Usage: u}
}

// BilledUsage returns what a failed call cost (zero when nothing was
// billed).
func BilledUsage(err error) Usage {
	var se *SpentError
	if errors.As(err, &se) {
		return se.Usage
	}
	return Usage{}
}

// addSpent sums two usages.
func addSpent(a, b Usage) Usage {
	return Usage{InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens,
		CostUSD: a.CostUSD + b.CostUSD, CostUnknown: a.CostUnknown || b.CostUnknown,
		CacheReadTokens: a.CacheReadTokens + b.CacheReadTokens, CacheWriteTokens: a.CacheWriteTokens + b.CacheWriteTokens}
}

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

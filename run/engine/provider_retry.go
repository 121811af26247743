package engine

import (
	"context"
	"fmt"
	"time"
)

// EvProviderRetry is written each time a provider tries a model call
// again inside one node attempt (a rate limit, an overloaded server, an
// answer it had to refuse): {call, attempt, wait_s, status?, reason}. The
// node's own retries are node.retrying; these are the ones below it, which
// would otherwise be invisible in the sealed record and in CI logs.
const EvProviderRetry = "provider.retry"

// ProviderRetry is one retry of a model call by the provider.
type ProviderRetry struct {
	Node    string        // the model id of the request (t.modelID())
	Call    int           // the request's Call
	Attempt int           // the attempt that failed, from 1
	Wait    time.Duration // the wait before the next attempt
	Status  int           // the HTTP status of the failure, 0 without one
	Reason  string        // why it failed, keys redacted
}

type retryHookKey struct{}

// RetryHook returns the function a model call reports provider retries
// to; the engine puts one in the context of every node attempt, and the
// model adapter hands it to the provider. nil when there is none.
func RetryHook(ctx context.Context) func(ProviderRetry) {
	f, _ := ctx.Value(retryHookKey{}).(func(ProviderRetry))
	return f
}

// withRetryHook makes provider retries of t's model calls events of t,
// and progress updates (shown on stderr).
func (t *task) withRetryHook(ctx context.Context) context.Context {
	return context.WithValue(ctx, retryHookKey{}, func(p ProviderRetry) {
		data := map[string]any{"call": p.Call, "attempt": p.Attempt, "wait_s": p.Wait.Seconds(), "reason": p.Reason}
		if p.Status != 0 {
			data["status"] = p.Status
		}
		_ = t.emit(pendingEvent{EvProviderRetry, t.id, data})
		t.r.note(Update{Node: t.id, Type: t.node.Type, State: StateRetrying,
			Detail: fmt.Sprintf("provider retry after attempt %d (waiting %v): %s", p.Attempt, p.Wait.Round(time.Millisecond), p.Reason)})
	})
}

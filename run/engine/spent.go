package engine

import "errors"

// A node's recorded usage counts every attempt that was paid for: a
// failed attempt's model calls cost as much as a successful one's. The
// usage of a failed attempt travels with its error (spentError); execute
// sums it over the attempts and records the sum in node.failed, or, when
// a later attempt succeeds, adds it to the usage of the node's output
// (withEarlierUsage). node.retrying keeps each failed attempt's share.

// spentError is a node failure that came after model calls which cost
// something (an answer that was not valid JSON, say). The usage travels
// with the error so that node.failed records it and the run's totals — and
// an evaluation's cost cap — count it.
type spentError struct {
	err   error
	usage Usage
}

func (e *spentError) Error() string { return e.err.Error() }
func (e *spentError) Unwrap() error { return e.err }

// permanentError is a failure that trying the node again cannot cure: a
// model call the provider refused for good (HTTP 400, 401, 403 or 404, a
// refusal, a scripted error with retryable: false). The node's retry:
// does not repeat it, so that a bad key or a wrong model name fails at
// once and is not billed again.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as a failure that a retry of the node cannot cure.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// WithUsage attaches to err what a failed model call cost: the model
// adapter wraps a provider's billed failure with it, so that the node
// counts the attempts the server billed although the call failed.
func WithUsage(err error, u Usage) error { return withUsage(err, u) }

// billedBy is what the failed model call that returned err cost (zero
// when nothing was billed).
func billedBy(err error) Usage {
	u, _ := spentUsage(err)
	return u
}

// withUsage attaches what the failed work cost to err.
func withUsage(err error, u Usage) error {
	if err == nil || u == (Usage{}) {
		return err
	}
	return &spentError{err: err, usage: u}
}

// spentUsage returns the usage attached to err (the outermost, when
// several are), if any.
func spentUsage(err error) (Usage, bool) {
	var s *spentError
	if errors.As(err, &s) {
		return s.usage, true
	}
	return Usage{}, false
}

func addUsage(a, b Usage) Usage {
	return Usage{
		InputTokens:  a.InputTokens + b.InputTokens,
		OutputTokens: a.OutputTokens + b.OutputTokens,
		CostUSD:      a.CostUSD + b.CostUSD,
		CostUnknown:  a.CostUnknown || b.CostUnknown,
	}
}

// withEarlierUsage adds what the node's failed attempts cost (spent) to the
// usage of the output of the attempt that succeeded, so that node.finished,
// the run's totals and an evaluation's cost cap count every attempt. Only
// an output object carries usage; anything else is returned as it is.
func withEarlierUsage(out any, spent Usage) any {
	m, ok := out.(map[string]any)
	if !ok || spent == (Usage{}) {
		return out
	}
	var last Usage
	switch u := m["usage"].(type) {
	case Usage:
		last = u
	case map[string]any:
		last = usageOf(m)
	}
	cp := make(map[string]any, len(m)+1)
	for k, v := range m {
		cp[k] = v
	}
	cp["usage"] = addUsage(spent, last)
	return cp
}

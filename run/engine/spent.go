package engine

import "errors"

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

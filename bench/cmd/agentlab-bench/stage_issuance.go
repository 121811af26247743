//go:build unix

package main

import (
	"errors"
	"time"

	"github.com/agentlab/agentlab/bench"
	"github.com/agentlab/agentlab/issuance"
)

var benchMetrics = []issuance.Metric{
	{Name: "gmv", Value: 2345678},
	{Name: "wow", Value: 0.064, Format: "percent"},
	{Name: "yoy", Value: 0.112, Format: "percent"},
	{Name: "outlets", Value: 1850},
	{Name: "basket", Value: 74.2},
	{Name: "margin", Value: 0.217, Format: "percent"},
	{Name: "conv", Value: 0.0295, Format: "percent"},
}

func issuanceWork(a *childArgs) (*sample, error) {
	text := bench.Narrative(a.size)
	ns, n, err := measure(a, func() (time.Duration, error) {
		t := time.Now()
		res := issuance.Check(text, benchMetrics, issuance.Options{Required: []string{"gmv"}})
		d := time.Since(t)
		if len(res.Numbers) == 0 {
			return 0, errors.New("the checker read no numbers")
		}
		return d, nil
	})
	return &sample{NsPerOp: ns, Ops: n, Bytes: int64(len(text)), Units: len(text)}, err
}

// issuanceFloor counts the digit runs of the same text with a plain byte
// loop: the least any reader of the numbers in a text must do.
func issuanceFloor(a *childArgs) (*sample, error) {
	text := bench.Narrative(a.size)
	ns, n, err := measure(a, func() (time.Duration, error) {
		t := time.Now()
		runs := digitRuns(text)
		d := time.Since(t)
		if runs == 0 {
			return 0, errors.New("no digits")
		}
		return d, nil
	})
	return &sample{NsPerOp: ns, Ops: n, Bytes: int64(len(text)), Units: len(text)}, err
}

// digitRuns counts the maximal runs of ASCII digits in s.
func digitRuns(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		d := s[i]-'0' < 10
		if d && !in {
			n++
		}
		in = d
	}
	return n
}

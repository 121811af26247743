//go:build unix

package main

import (
	"errors"
	"regexp"
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

// issuanceFloor is a plain regexp scan for digit runs over the same text.
func issuanceFloor(a *childArgs) (*sample, error) {
	text := bench.Narrative(a.size)
	re := regexp.MustCompile(`[0-9]+`)
	ns, n, err := measure(a, func() (time.Duration, error) {
		t := time.Now()
		m := re.FindAllStringIndex(text, -1)
		d := time.Since(t)
		if len(m) == 0 {
			return 0, errors.New("no digits")
		}
		return d, nil
	})
	return &sample{NsPerOp: ns, Ops: n, Bytes: int64(len(text)), Units: len(text)}, err
}

package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// Outcomes of a question × variant in a transition.
const (
	OutcomePass   = "pass"
	OutcomeFail   = "fail"
	OutcomeAbsent = "absent"
)

// Transition is how one question × variant changed from the baseline.
type Transition struct {
	Question string `json:"question"`
	Variant  string `json:"variant"`
	Before   string `json:"before"` // pass|fail|absent
	After    string `json:"after"`  // pass|fail|absent
}

// Regression reports whether the transition fails the evaluation: a
// question that passed (or is new) and now fails.
func (t Transition) Regression() bool {
	return t.After == OutcomeFail && (t.Before == OutcomePass || t.Before == OutcomeAbsent)
}

// Comparison is the current result against a baseline result.
type Comparison struct {
	File        string         `json:"file"`
	Suite       string         `json:"suite"` // the baseline's suite hash
	SameSuite   bool           `json:"same_suite"`
	Counts      map[string]int `json:"counts"` // "pass→fail": n, …
	Regressions int            `json:"regressions"`
	Transitions []Transition   `json:"transitions"` // every changed question × variant
	Pairs       []Pair         `json:"pairs"`       // baseline (A) vs current (B), per variant
}

// ReadResult reads a result file written by --out or --format json.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseResult(path, b)
}

// ParseResult reads a result file's bytes; name says where they came from.
func ParseResult(name string, b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not an eval result: %v", name, err)
	}
	if r.Format != ResultFormat {
		return nil, fmt.Errorf("%s: result format %d is not %d; re-create the baseline with this version", name, r.Format, ResultFormat)
	}
	return &r, nil
}

// Compare compares cur with base per question × variant. Questions only in
// the baseline are listed as pass→absent or fail→absent and never count as
// regressions (a removed question cannot fail).
func Compare(base, cur *Result, file string) *Comparison {
	c := &Comparison{File: file, Suite: base.Suite, SameSuite: base.Suite == cur.Suite, Counts: map[string]int{}, Transitions: []Transition{}}
	variants := variantNames(cur.Cases)
	for _, v := range variantNames(base.Cases) {
		if !containsStr(variants, v) {
			variants = append(variants, v)
		}
	}
	for _, v := range variants {
		b := questionPass(base.Cases, v)
		a := questionPass(cur.Cases, v)
		qs := map[string]bool{}
		for q := range a {
			qs[q] = true
		}
		for q := range b {
			qs[q] = true
		}
		names := make([]string, 0, len(qs))
		for q := range qs {
			names = append(names, q)
		}
		sort.Strings(names)
		for _, q := range names {
			t := Transition{Question: q, Variant: v, Before: outcome(b, q), After: outcome(a, q)}
			c.Counts[t.Before+"→"+t.After]++
			if t.Regression() {
				c.Regressions++
			}
			if t.Before != t.After {
				c.Transitions = append(c.Transitions, t)
			}
		}
		if len(a) > 0 && len(b) > 0 {
			c.Pairs = append(c.Pairs, PairOf("baseline:"+v, b, v, a))
		}
	}
	return c
}

func outcome(m map[string]bool, q string) string {
	pass, ok := m[q]
	switch {
	case !ok:
		return OutcomeAbsent
	case pass:
		return OutcomePass
	}
	return OutcomeFail
}

func variantNames(cases []CaseResult) []string {
	var out []string
	seen := map[string]bool{}
	for i := range cases {
		if !seen[cases[i].Variant] {
			seen[cases[i].Variant] = true
			out = append(out, cases[i].Variant)
		}
	}
	return out
}

// ExitCode is the evaluation's exit code: with a baseline, 1 when any
// question × variant regressed (passed, or was absent, in the baseline
// and fails now); without one, 1 when any case failed. Cases left unrun
// (cost cap, interruption) count as failures. Otherwise 0.
func ExitCode(r *Result) int {
	if r.Unrun > 0 {
		return 1
	}
	if r.Baseline != nil {
		if r.Baseline.Regressions > 0 {
			return 1
		}
		return 0
	}
	for i := range r.Cases {
		if !r.Cases[i].Pass {
			return 1
		}
	}
	return 0
}

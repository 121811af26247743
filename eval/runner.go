package eval

import (
	"context"

	"github.com/agentlab/agentlab/eval/suite"
)

// Case is one question under one variant, one repeat (0-based).
type Case struct {
	Question *suite.Question
	Variant  *suite.Variant
	Repeat   int
	// Resumed is set when the case runs in a resumed evaluation: an
	// attempt that was interrupted may have left a run under the case's
	// derived id, unrecorded, which the case then replaces.
	Resumed bool
}

// Key identifies a case within an evaluation: question/variant/repeat.
type Key struct {
	Question string `json:"question"`
	Variant  string `json:"variant"`
	Repeat   int    `json:"repeat"`
}

// Key returns the case's key.
func (c Case) Key() Key { return Key{c.Question.ID, c.Variant.Name, c.Repeat} }

// Run statuses an Answer may carry (those of the run facade, plus error).
const (
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusWaiting   = "waiting"
	StatusCancelled = "cancelled"
	StatusError     = "error" // the run could not be started or read
)

// Answer is what a run of the flow answered.
type Answer struct {
	Status string
	// Text is the answer the numbers are read from.
	Text string
	// Tier is the issuance verdict of the run's contracted output
	// (formal|degraded|withheld), "" when the flow has no contract.
	Tier string
	// SQL lists the queries the run issued, in order.
	SQL []string
	// Metrics are the metric values the run computed, by name, and Cards
	// the cards (name@version) its metrics nodes used.
	Metrics map[string]float64
	Cards   []string
	// CardMetrics holds, by card (name@version), the values a dual
	// metrics node computed with a card version other than the one in
	// Metrics (the pinned version next to the upgraded one).
	CardMetrics map[string]map[string]float64
	// NoData is set when the flow's output says so explicitly (a boolean
	// output field named no_data).
	NoData bool

	InputTokens  int
	OutputTokens int
	CostUSD      float64

	Run   string // run id
	Seal  string // b3:… when the run was sealed
	Error string // why the run failed
	// Log is the run's whole event log (JSON lines) when the run has no
	// directory of its own (it ran in memory): the evaluation stores it
	// under its seal. nil for a run in the data dir.
	Log []byte
	// Artifacts are the artifacts Log references, which the evaluation's
	// seal then covers.
	Artifacts []string
}

// Runner answers one case. An error means the case could not be run at
// all (it is scored as failed with the error as the reason); a run that
// ran and failed is an Answer with Status failed.
type Runner interface {
	Run(ctx context.Context, c Case) (Answer, error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, c Case) (Answer, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, c Case) (Answer, error) { return f(ctx, c) }

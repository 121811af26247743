// Package runlog keeps the directory of one run: an exclusive lock, the
// append-only hash-chained events.jsonl, the run.json record and the
// checkpoint.json that resume needs (docs/formats.md).
//
// Where it fits: docs/architecture.md#running.
package runlog

import (
	"encoding/json"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/compile/form"
)

// RecordFormat is the current Record.Format.
const RecordFormat = 1

// Record is run.json: what a run is, where it stands and how it ended.
// Times are chain.TimeLayout strings taken from the engine's clock.
type Record struct {
	Format     int             `json:"format"`
	ID         string          `json:"id"`
	Plan       string          `json:"plan"`                  // b3:… of the plan
	Flow       string          `json:"flow,omitempty"`        // the flow or plan file the run was started from
	Tier       string          `json:"tier,omitempty"`        // issuance verdict: formal|degraded|withheld ("" when no contract)
	Kind       string          `json:"kind,omitempty"`        // exploratory|formal
	Origin     string          `json:"origin,omitempty"`      // how the run was started: cli, ci, eval, resume…
	Actor      string          `json:"actor,omitempty"`       // who started it
	Provider   string          `json:"provider,omitempty"`    // mock, script:FILE, openai, anthropic
	Model      string          `json:"model,omitempty"`       // model name, when one was given
	Seed       int64           `json:"seed"`                  // mock seed
	InputsHash string          `json:"inputs_hash,omitempty"` // b3:… of the canonical inputs
	Inputs     json.RawMessage `json:"inputs,omitempty"`      // the inputs themselves (never secrets)
	Status     string          `json:"status"`                // running|succeeded|failed|waiting|cancelled
	Created    string          `json:"created"`
	Started    string          `json:"started,omitempty"`
	Finished   string          `json:"finished,omitempty"`
	Seal       string          `json:"seal,omitempty"`      // b3:… of SealData, "" until sealed
	SealData   *chain.Seal     `json:"seal_data,omitempty"` // the seal itself
	Signature  string          `json:"signature,omitempty"` // ed25519 signature of the seal hash, base64
	PublicKey  string          `json:"public_key,omitempty"`
	Outputs    json.RawMessage `json:"outputs,omitempty"`
	Error      string          `json:"error,omitempty"`  // why the run failed, one sentence
	Report     string          `json:"report,omitempty"` // path of report.html
	Bundle     string          `json:"bundle,omitempty"` // path of bundle.html
	Waiting    []Waiting       `json:"waiting,omitempty"`
	ResumedAt  []string        `json:"resumed_at,omitempty"` // times of each resume
}

// Waiting is a human node the run is paused on, with the command that
// decides it.
type Waiting struct {
	Node    string `json:"node"`
	Command string `json:"command"`
	// Form lists the fields an approval of the node fills (nil: the node
	// has no form). Additive: a record without it reads as before.
	Form form.Form `json:"form,omitempty"`
}

// Run statuses.
const (
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusWaiting   = "waiting"
	StatusCancelled = "cancelled"
)

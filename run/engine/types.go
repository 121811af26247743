package engine

import (
	"context"
	"time"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
)

// Event types the engine writes. node.token is never written: tokens are
// shown live through the Observer only, so that a streamed response does
// not make the sealed chain depend on how the provider chunked it.
const (
	EvNodeStarted  = "node.started"
	EvNodeFinished = "node.finished"
	EvNodeFailed   = "node.failed"
	EvNodeSkipped  = "node.skipped"
	EvNodeRetrying = "node.retrying"
)

// Recorder receives the engine's events in commit order and stores large
// payloads. runlog.Run satisfies it through a small adapter in package run.
type Recorder interface {
	Append(typ, node string, data any) error
	PutArtifact(b []byte) (hashid.ID, error)
}

// BatchRecorder is a Recorder that can write several events at once with
// one write and one fsync (a group commit). The engine uses it when buffered
// events of several nodes become due together.
type BatchRecorder interface {
	Recorder
	AppendBatch(evs []Event) error
}

// Event is one event for AppendBatch.
type Event struct {
	Type string
	Node string
	Data any
}

// Model is the part of a provider the engine uses.
type Model interface {
	Complete(ctx context.Context, req ModelRequest, onToken func(string)) (ModelResponse, error)
}

// Message is one chat message.
type Message struct {
	Role    string
	Content string
}

// ModelRequest is one model call.
type ModelRequest struct {
	Node         string // full (prefixed) node id; a rework uses the reworked node's id
	Call         int    // 0-based index of this call among the node's calls in this attempt of the run
	Kind         string // llm | branch
	Model        string
	System       string
	Messages     []Message
	OutputSchema map[string]any
	Labels       []string
	Seed         int64
	Temperature  *float64
	MaxTokens    int
}

// Usage is what a model call cost.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// ModelResponse is a model's answer.
type ModelResponse struct {
	Text  string
	Model string
	Usage Usage
}

// Node states reported to the Observer.
const (
	StateRunning  = "running"
	StateFinished = "finished"
	StateFailed   = "failed"
	StateSkipped  = "skipped"
	StateRetrying = "retrying"
)

// Update is one progress report: a state change (Token empty) or a
// streamed token of a running model node.
type Update struct {
	Node    string
	Type    string
	State   string
	Token   string
	Detail  string // error sentence or skip reason
	Elapsed time.Duration
	Usage   Usage
	Cached  bool // restored from a previous attempt of the run
}

// Config is everything one execution needs.
type Config struct {
	Plan *plan.Plan
	// Inputs are the run inputs, already checked by PrepareInputs.
	Inputs map[string]any
	Seed   int64
	// Parallel bounds the leaf nodes that work at once; 0 means the plan's setting.
	Parallel int
	Recorder Recorder
	// Model answers llm nodes and semantic branches; nil makes them fail.
	Model Model
	// DefaultModel is used by llm nodes that name no model.
	DefaultModel string
	// MemoryDir holds memory nodes' files (<data-dir>/memory).
	MemoryDir string
	// Actor scopes memory with scope: actor.
	Actor string
	// Prior holds what an earlier attempt of this run finished (resume).
	Prior *Prior
	// Observe receives progress; it is called from several goroutines.
	Observe func(Update)
	// InlineLimit is the largest node.finished payload (canonical bytes)
	// written inline; larger ones become artifacts. 0 means 4096.
	InlineLimit int
}

// Run statuses.
const (
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Result is how an execution ended.
type Result struct {
	Status  string
	Outputs map[string]any
	// Err is the sentence saying why the run failed or was cancelled.
	Err   error
	Steps int
	Nodes []NodeSummary
}

// NodeSummary is one row of the end-of-run table.
type NodeSummary struct {
	Node    string
	Type    string
	Status  string
	Elapsed time.Duration
	Usage   Usage
	Cached  bool
}

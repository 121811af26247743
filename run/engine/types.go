package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentlab/agentlab/evidence"
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

// Message is one chat message. An assistant message may carry the tool
// calls the model asked for; a "tool" message answers one of them (same
// ToolCallID).
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
	// IsError marks a tool message that reports a failed, refused or
	// malformed call rather than a result.
	IsError bool
}

// ToolDecl offers one tool to the model: its name, what it does, and the
// JSON Schema of its arguments object.
type ToolDecl struct {
	Name        string
	Description string
	Schema      map[string]any
	// Output is the JSON Schema of what a call returns, when it is known;
	// code mode shows it as the function's result type. It is not sent
	// to providers, whose tool declarations have no such field.
	Output map[string]any
}

// ToolCall is the model asking for one tool to run. Args is what the model
// wrote: usually a JSON object, but it is kept as given so that a malformed
// call can be fed back to the model instead of failing the node.
type ToolCall struct {
	ID   string
	Name string
	Args json.RawMessage
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
	// Tools are the tools offered to the model (agent and supervisor calls).
	Tools []ToolDecl
	// Evidence is what a report call may cite (Kind "report"), so that a
	// provider that writes markers itself writes only resolvable ones.
	Evidence *Evidence
}

// Usage is what a model call cost.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// CostUnknown is set when a call's model has no price in the config:
	// CostUSD then leaves that call out rather than counting it as free.
	CostUnknown bool `json:"cost_unknown,omitempty"`
}

// ModelResponse is a model's answer.
type ModelResponse struct {
	Text  string
	Model string
	Usage Usage
	// ToolCalls are the tools the model asks to run; empty means the text
	// is its answer.
	ToolCalls []ToolCall
}

// Node states reported to the Observer.
const (
	StateRunning  = "running"
	StateFinished = "finished"
	StateFailed   = "failed"
	StateSkipped  = "skipped"
	StateRetrying = "retrying"
	StateWaiting  = "waiting"
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
	// Sources answers db_query__<source> tool calls (nil: a flow without
	// sources); Ledger numbers the run's evidence (nil: a fresh ledger).
	Sources SourceDB
	Ledger  *evidence.Ledger
	// Unfinished is the evidence earlier attempts registered for nodes
	// that did not finish, which those nodes reclaim when they repeat it.
	Unfinished Unfinished
	// BaseDir resolves paths a node names relative to the flow (retrieve's
	// from:); Kind is the run's kind (exploratory|formal).
	BaseDir string
	Kind    string
	// GetArtifact reads a stored artifact (evidence of an earlier attempt
	// of a resumed run); nil means only this attempt's evidence is known.
	GetArtifact func(hashid.ID) ([]byte, error)
	// Retrieval embeds and reranks for retrieve nodes that name an
	// embed_model or a rerank_model; nil makes such a node fail.
	Retrieval RetrievalModels
	// Host is what agent, supervisor, code and human nodes use from the
	// machine and the person at it: tools, permissions, the sandbox, the
	// clock and prompts (host.go).
	Host Host
}

// Run statuses.
const (
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
	// StatusWaiting: the run paused at one or more human nodes (Result.Waiting).
	StatusWaiting = "waiting"
)

// Result is how an execution ended.
type Result struct {
	Status  string
	Outputs map[string]any
	// Err is the sentence saying why the run failed or was cancelled.
	Err   error
	Steps int
	Nodes []NodeSummary
	// Tier is the issuance verdict over the contracted output nodes
	// (the worst of them); "" when no output has a contract.
	Tier string
	// Waiting lists the human nodes the run paused at (StatusWaiting).
	Waiting []Waiting
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

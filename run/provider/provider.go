// Package provider is the seam between the engine and a language model.
//
// The engine builds a Request (one model call of one node), a Provider
// answers it, streaming text through a callback. Two providers are built
// in: "mock", a deterministic stand-in that needs no network and no key
// (the default, so that every flow runs on a fresh machine and a run is
// byte-reproducible from its seed), and "script:FILE", which replays canned
// responses per node and call so that users can test their own flows.
// Real model APIs plug in behind the same interface.
//
// Where it fits: docs/architecture.md#running.
package provider

import (
	"context"
	"encoding/json"
)

// Message is one turn of a conversation. Role is one of system, user,
// assistant or tool; a tool message answers the assistant's tool call with
// the same ToolCallID.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// IsError marks a tool message that reports a failed or refused call
	// (Anthropic's is_error). Not part of the JSON: the content already
	// says "error: …", and the mock's answers stay what they were.
	IsError bool `json:"-"`
}

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolDecl offers a tool to the model. Schema is the JSON Schema of the
// tool's arguments object.
type ToolDecl struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema,omitempty"`
}

// ToolCall is the model asking for a tool to be run. Args is a JSON object.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Evidence is what a report node may cite. The engine passes it so that a
// provider which writes markers itself (the mock) writes only valid ones.
type Evidence struct {
	Metrics   []EvidenceMetric   `json:"metrics,omitempty"`
	Snapshots []EvidenceSnapshot `json:"snapshots,omitempty"`
	Inputs    []string           `json:"inputs,omitempty"`
	Knowledge []EvidenceHit      `json:"knowledge,omitempty"`
}

// EvidenceMetric is one computed metric, cited as [[m:NAME]].
type EvidenceMetric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// EvidenceSnapshot is one sealed query result (ID "Q1", "Q2", …), cited
// cell by cell as [[v:Q1.r0.COL]] or as a table.
type EvidenceSnapshot struct {
	ID      string   `json:"id"`
	Node    string   `json:"node,omitempty"`
	Columns []string `json:"columns,omitempty"`
	Rows    int      `json:"rows"`
}

// EvidenceHit is one knowledge hit (ID "K1", …), quoted as [[q:K1|words]].
type EvidenceHit struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Kinds of Request, named after the node (or role) that makes the call.
const (
	KindLLM        = "llm"
	KindAgent      = "agent"
	KindReport     = "report"
	KindBranch     = "branch"
	KindJudge      = "judge"
	KindSupervisor = "supervisor"
)

// Request is one model call.
type Request struct {
	// Node is the id of the node making the call and Call the 0-based index
	// of this call within that node; together they select a scripted
	// response and make mock answers differ from call to call.
	Node string `json:"node"`
	Call int    `json:"call"`
	// Kind is one of the Kind constants.
	Kind     string     `json:"kind"`
	Model    string     `json:"model,omitempty"`
	System   string     `json:"system,omitempty"`
	Messages []Message  `json:"messages,omitempty"`
	Tools    []ToolDecl `json:"tools,omitempty"`
	// OutputSchema, when set, requires Text to be JSON valid against it.
	OutputSchema map[string]any `json:"output_schema,omitempty"`
	// Labels, when set, requires Text to be exactly one of them.
	Labels      []string  `json:"labels,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Seed        int64     `json:"seed,omitempty"`
	Evidence    *Evidence `json:"evidence,omitempty"`
	// SDK is the code-mode SDK text (presets/ptc.RenderSDK) when the
	// request offers the run_code tool in place of the node's tools; the
	// run_code description carries the same text for remote models.
	SDK string `json:"sdk,omitempty"`
}

// Usage is what a call consumed.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// CostUnknown is set when the model has no entry in Options.Prices:
	// CostUSD is then 0 because the price is not known, not because the
	// call was free.
	CostUnknown bool `json:"cost_unknown,omitempty"`
	// CacheReadTokens and CacheWriteTokens are the part of InputTokens the
	// server read from, or wrote to, its prompt cache; they are priced at
	// the cache rates (see prices.go).
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Stop reasons of a Response.
const (
	StopEnd       = "end"        // the answer is complete
	StopToolCalls = "tool_calls" // the model asks for tools to be run
	StopMaxTokens = "max_tokens" // the answer was cut at Request.MaxTokens
)

// Response is a provider's answer: text, or tool calls, or both.
type Response struct {
	Text       string     `json:"text,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	Usage      Usage      `json:"usage"`
	Model      string     `json:"model,omitempty"`
	StopReason string     `json:"stop_reason,omitempty"`
}

// Provider answers model calls. Implementations are safe for concurrent
// use: the engine runs parallel branches at the same time.
type Provider interface {
	// Name identifies the provider in events and messages ("mock",
	// "script").
	Name() string
	// Complete answers req. When onToken is not nil the text is also
	// delivered piece by piece as it is produced; the pieces concatenate to
	// Response.Text exactly. Complete stops early with ctx.Err() when ctx is
	// cancelled.
	Complete(ctx context.Context, req Request, onToken func(string)) (Response, error)
}

// Options configure New.
type Options struct {
	// Seed makes the mock deterministic; Request.Seed, when not zero,
	// takes precedence for that call.
	Seed int64
	// Model is the default model name when a request names none.
	Model string
	// BaseDir resolves relative paths such as the FILE of "script:FILE".
	BaseDir string
	// Prices maps a model name to its price, from which the remote
	// providers compute Usage.CostUSD (see prices.go).
	Prices map[string]Price
	// Remote configures the openai and anthropic providers: keys, base
	// URLs, timeouts and retries (see remote.go).
	Remote RemoteOptions
	// Question is the id of the eval question the run answers ("" outside
	// an eval): a script file's questions: entries for it win.
	Question string
}

package engine

import (
	"context"
	"encoding/json"
	"time"

	ptcsdk "github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run/sandbox"
	"github.com/agentlab/agentlab/run/tools"
)

// Host is what agent, supervisor, code and human nodes use from the
// machine and from the person at it. Package run fills it; tests fill it
// with fakes. Every field may be left zero: a zero Host offers no tools
// besides db_query, refuses every tool call that would need a person,
// runs code in the detected sandbox under a temporary directory, and never
// prompts.
type Host struct {
	// Tools holds the file, HTTP and custom tools (db_query tools come from
	// Config.Sources). nil: none.
	Tools *tools.Registry
	// Permission decides every tool call before it runs — an agent's, a
	// supervisor worker's, a run_code sub-call's, a tool node's — and each
	// decision is a permission.decided event. nil: the node's own
	// permission rules, then "ask" — a refusal unless Yes.
	Permission Permission
	// Yes allows what would otherwise be asked (run --yes). It never
	// approves a human node.
	Yes bool
	// WorkDir is where code nodes get a working directory each
	// (<run dir>/work); "" means a temporary directory.
	WorkDir string
	// Sandbox forces a sandbox backend ("" = detected).
	Sandbox sandbox.Backend
	// Now is the run's clock (human deadlines); nil means time.Now.
	Now func() time.Time
	// Ask asks the person at the terminal to decide a human node inline
	// (run --interactive). nil: never; the run pauses instead.
	Ask func(ctx context.Context, q HumanQuestion) (HumanDecision, error)
	// MaxAgentSteps caps every agent's step backstop
	// (AGENTLAB_MAX_AGENT_STEPS); 0: no cap beyond the node's own.
	MaxAgentSteps int
	// ContextWindow is the model's context window in tokens; 0 means
	// DefaultContextWindow.
	ContextWindow int
	// PTC evaluates the code-mode permission chain (presets/ptc.Decide
	// over the PTC_* configuration and the run's user) for an agent node
	// whose presentation asks for code mode, given the node's title and
	// toolsets (the names of its tools). nil: code mode is off, and such
	// nodes call their tools natively.
	PTC func(title string, toolsets []string) ptcsdk.Decision
}

// DefaultContextWindow is the context window assumed when none is
// configured: a conservative size that current chat models all offer.
const DefaultContextWindow = 128000

func (h *Host) now() time.Time {
	if h.Now != nil {
		return h.Now().UTC()
	}
	return time.Now().UTC()
}

// Permission decides whether one tool call may run.
type Permission interface {
	Decide(ctx context.Context, q PermissionQuery) PermissionDecision
}

// PermissionQuery is one tool call to decide.
type PermissionQuery struct {
	Node string
	Tool string
	Args json.RawMessage
	// Rules are the node's own `permissions` rules, in order.
	Rules []PermissionRule
}

// PermissionRule is one `permissions` entry of an agent node: a tool name
// (or a pattern ending in *) and allow, deny or ask.
type PermissionRule struct {
	Tool   string `json:"tool"`
	Action string `json:"action"`
}

// PermissionDecision is the answer: allowed or not, by what, and a
// sentence for the event and (when refused) for the model.
type PermissionDecision struct {
	Allowed bool
	// By says what decided: remembered, rule, prompt, yes, refused-no-tty.
	By string
	// Rule names the rule that decided, when one did.
	Rule     string
	Sentence string
}

package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run/sandbox"
)

// Program languages.
const (
	LangPython     = "python"
	LangJavaScript = "javascript"
)

// Defaults and bounds of a Spec.
const (
	DefaultTimeout     = 120 * time.Second
	MaxTimeout         = 600 * time.Second
	DefaultMaxParallel = 10
	MaxMaxParallel     = 64
	DefaultMaxPending  = 100
	DefaultOutputCap   = 1 << 20 // bytes the program may print
	DefaultMaxFrame    = 1 << 20 // bytes of one frame, either way
	MinMaxFrame        = 4 << 10
	DefaultMemoryMB    = 512
)

// CallToolFunc runs one sub-call of a program. id is "<call>:ptc:<n>".
// The engine wires it to the same permission checks, approvals, timeouts
// and events as a native tool call. The returned value must be JSON; an
// error (a refusal, a denial, a failure) reaches the program as a
// ToolCallError carrying err.Error() as its message. ctx is cancelled when
// the program ends.
type CallToolFunc func(ctx context.Context, id, name string, args json.RawMessage) (json.RawMessage, error)

// Spec is one run_code call.
type Spec struct {
	// CallID is the id of the run_code call; sub-calls get CallID:ptc:<n>.
	CallID string
	// Language is python or javascript ("typescript", the SDK language,
	// runs as javascript: the TypeScript SDK documents plain functions).
	Language string
	// Program is the model's program, run as the body of an async function.
	Program string
	// Tools are the tools the program may call: the ones its SDK declares.
	// A call of any other name is answered with a ToolCallError and never
	// reaches CallTool.
	Tools    []sdk.ToolInfo
	CallTool CallToolFunc

	MaxParallel int           // sub-calls running at once (default 10, at most 64)
	MaxPending  int           // unanswered sub-calls allowed (default 100)
	Timeout     time.Duration // wall clock (default 120 s, at most 600 s)
	OutputCap   int           // bytes the program may print (default 1 MiB)
	MaxFrame    int           // bytes of one frame, either way (default 1 MiB)
	MemoryMB    int           // RLIMIT_DATA of the program (default 512)

	// SandboxEnv adds variables to the program's environment
	// (Decision.SandboxEnv: AGENTLAB_PTC_DEBUG=true turns the prelude's
	// debug log on).
	SandboxEnv map[string]string
	// Dir is the program's working directory (created by the caller).
	Dir string
	// Backend overrides the detected sandbox backend ("" = detected).
	Backend sandbox.Backend

	// raw runs Program as it is, without the prelude: tests use it to
	// play a misbehaving program side.
	raw bool
}

// ErrSpec marks a Spec that cannot run as given (a caller's mistake, not
// the program's).
var ErrSpec = errors.New("ptc: invalid spec")

// RuntimeLanguage maps an SDK or program language to the runtime that
// runs it, or "" when there is none.
func RuntimeLanguage(lang string) string {
	switch lang {
	case LangPython, "py", "":
		return LangPython
	case LangJavaScript, "js", sdk.LangTypeScript, "ts":
		return LangJavaScript
	}
	return ""
}

func (s *Spec) normalise() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, args...))
	}
	lang := RuntimeLanguage(s.Language)
	if lang == "" {
		return bad("language %q is not supported; use python or javascript", s.Language)
	}
	s.Language = lang
	if s.CallID == "" {
		return bad("no call id; give the id of the run_code call")
	}
	if s.CallTool == nil {
		return bad("no CallTool function")
	}
	if s.Dir == "" {
		return bad("no working directory")
	}
	if s.MaxParallel < 0 || s.MaxPending < 0 || s.Timeout < 0 || s.OutputCap < 0 || s.MaxFrame < 0 || s.MemoryMB < 0 {
		return bad("limits must not be negative")
	}
	def := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	def(&s.MaxParallel, DefaultMaxParallel)
	s.MaxParallel = min(s.MaxParallel, MaxMaxParallel)
	def(&s.MaxPending, DefaultMaxPending)
	s.MaxPending = max(s.MaxPending, s.MaxParallel)
	def(&s.OutputCap, DefaultOutputCap)
	def(&s.MaxFrame, DefaultMaxFrame)
	s.MaxFrame = max(s.MaxFrame, MinMaxFrame)
	def(&s.MemoryMB, DefaultMemoryMB)
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	s.Timeout = min(s.Timeout, MaxTimeout)
	return nil
}

// debug reports whether the prelude should log its frames to stderr.
func (s *Spec) debug() bool { return s.SandboxEnv[sdk.SandboxDebugEnv] == "true" }

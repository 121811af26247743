package ptc

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Failure kinds: what ended a program without a result.
const (
	// KindTimeout: the wall-clock timeout killed the program.
	KindTimeout = "timeout"
	// KindProtocol: a frame was malformed, too large, out of order or
	// missing (a program that ends without done), or too many calls were
	// pending.
	KindProtocol = "protocol"
	// KindToolError: a tool call failed and the program did not catch the
	// ToolCallError.
	KindToolError = "tool_error"
	// KindExit: the program raised another error, exited with a non-zero
	// status, or was killed by a resource limit.
	KindExit = "exit"
	// KindOutputCap: the program printed more than the output cap.
	KindOutputCap = "output_cap"
	// KindSandbox: the sandbox could not start the program (no
	// interpreter, a forced backend that does not work here).
	KindSandbox = "sandbox"
)

// Failure says why a program produced no result.
type Failure struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Tool and SubCall name the failed sub-call of a tool_error.
	Tool    string `json:"tool,omitempty"`
	SubCall string `json:"sub_call,omitempty"`
}

// SubCall is one tool call a program made, in arrival order.
type SubCall struct {
	ID    string          `json:"id"` // <call>:ptc:<n>
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args,omitempty"`
	Error string          `json:"error,omitempty"` // empty when it succeeded
}

// Facts describe where and within which limits the program ran; they are
// shown with a failure so that the model (and the person reading) can
// tell a limit from a bug.
type Facts struct {
	Backend     string   `json:"backend"` // bwrap or process ("" when it never started)
	Isolated    bool     `json:"isolated"`
	Language    string   `json:"language"`
	Runtime     string   `json:"runtime,omitempty"` // interpreter version the prelude reported
	TimeoutS    float64  `json:"timeout_s"`
	MemoryMB    int      `json:"memory_mb"`
	OutputCap   int      `json:"output_cap"`
	MaxFrame    int      `json:"max_frame"`
	MaxParallel int      `json:"max_parallel"`
	Warnings    []string `json:"warnings,omitempty"`
}

// Result is the outcome of one program.
type Result struct {
	// Output is the program's result: the value it returned, or, when it
	// returned nothing, what it printed if that is one JSON value; null
	// otherwise. Nil when the program failed.
	Output json.RawMessage `json:"output"`
	// Stdout is what the program printed (at most Spec.OutputCap bytes).
	Stdout string `json:"stdout"`
	// Logs is the tail of what the program wrote to stderr.
	Logs     string        `json:"logs,omitempty"`
	SubCalls []SubCall     `json:"sub_calls"`
	Failure  *Failure      `json:"failure,omitempty"`
	Sandbox  Facts         `json:"sandbox"`
	ExitCode int           `json:"exit_code"`
	Duration time.Duration `json:"-"`
}

// OK reports whether the program finished with a result.
func (r *Result) OK() bool { return r.Failure == nil }

// logsTail is how much of stderr a Result keeps.
const logsTail = 4 << 10

// tail keeps the last n bytes of s, starting at a line when it can.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	if i := strings.IndexByte(s[cut:], '\n'); i >= 0 && i < n/2 {
		cut += i + 1
	}
	for cut < len(s) && s[cut]&0xC0 == 0x80 { // not in the middle of a UTF-8 sequence
		cut++
	}
	return "[… " + strconv.Itoa(cut) + " earlier bytes of logs dropped]\n" + s[cut:]
}

// ForModel is the run_code tool result the model is shown: a JSON object
// with ok, and either the output (and printed text, when it adds
// anything) or the failure with its kind, the logs tail, the sandbox
// facts and the failed sub-calls.
func (r *Result) ForModel() string {
	type subErr struct {
		ID    string `json:"id"`
		Tool  string `json:"tool"`
		Error string `json:"error"`
	}
	type view struct {
		OK       bool            `json:"ok"`
		Output   json.RawMessage `json:"output,omitempty"`
		Stdout   string          `json:"stdout,omitempty"`
		Failure  *Failure        `json:"failure,omitempty"`
		Logs     string          `json:"logs,omitempty"`
		Sandbox  *Facts          `json:"sandbox,omitempty"`
		SubCalls int             `json:"sub_calls"`
		Failed   []subErr        `json:"failed_sub_calls,omitempty"`
	}
	v := view{OK: r.OK(), SubCalls: len(r.SubCalls)}
	if r.OK() {
		v.Output = r.Output
		if len(v.Output) == 0 {
			v.Output = json.RawMessage("null")
		}
		if strings.TrimSpace(r.Stdout) != strings.TrimSpace(string(r.Output)) {
			v.Stdout = r.Stdout
		}
	} else {
		v.Failure, v.Stdout, v.Logs = r.Failure, r.Stdout, r.Logs
		facts := r.Sandbox
		v.Sandbox = &facts
	}
	for _, c := range r.SubCalls {
		if c.Error != "" {
			v.Failed = append(v.Failed, subErr{c.ID, c.Tool, c.Error})
		}
	}
	b, err := json.Marshal(v)
	if err != nil { // Output was checked when it arrived; this cannot happen
		return `{"ok":false,"failure":{"kind":"protocol","message":"the result cannot be encoded"}}`
	}
	return string(b)
}

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/presets"
	"github.com/agentlab/agentlab/run/sandbox"
)

func init() { registerExecutor("code", executor{leaf: true, run: execCode}) }

// EvCodeRan records how a code node's program ran: the sandbox backend,
// exit code, whether it timed out, output sizes and limit warnings. No
// durations: they would make the sealed log differ between two identical
// runs.
const EvCodeRan = "code.ran"

var unsafeDirChars = lazyre.New(`[^A-Za-z0-9_.-]+`)

// execCode runs a code node's program (Python or JavaScript, already
// inlined from file: by compile) in the sandbox: an emptied environment
// (PATH, TEMP, TMP), a working directory of its own, CPU, memory and
// output limits, and a wall-clock timeout (timeout_s, else the preset's
// sandbox timeout). Its stdin is one JSON document,
// {"inputs": run inputs, "vars": variables, "nodes": {id: output} of its
// direct predecessors}; its stdout is the result, parsed when it is JSON.
// A non-zero exit or a timeout fails the node with the tail of stderr.
// Output: {stdout, json?, exit_code, backend, evidence_role}.
func execCode(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	lang := n.Str("language")
	if lang == "" {
		lang = "python"
	}
	code := n.Str("code")
	if strings.TrimSpace(code) == "" {
		return nil, effects{}, fmt.Errorf("node %q: it has no code; give code: or file:", t.id)
	}
	role := n.Str("evidence_role")
	if role == "" {
		role = "compute"
	}
	a := presets.Effective(t.presetRows())
	stdin, err := t.codeStdin()
	if err != nil {
		return nil, effects{}, err
	}
	timeout := time.Duration(a.SandboxTimeoutS * float64(time.Second))
	if n.TimeoutS > 0 {
		timeout = time.Duration(n.TimeoutS * float64(time.Second))
	}
	dir, cleanup, err := t.codeDir()
	if err != nil {
		return nil, effects{}, err
	}
	defer cleanup()
	spec := sandbox.Spec{
		Language: lang, Code: code, Dir: dir, Stdin: stdin, Timeout: timeout,
		MemoryMB: a.SandboxMemoryMB, OutputCap: a.SandboxOutput, Backend: t.r.cfg.Host.Sandbox,
	}
	spec.Backend = sandbox.ForPreset(spec.Backend, a.Sandbox) // a preset may only tighten
	res, err := sandbox.Run(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return nil, effects{}, ctx.Err()
		}
		return nil, effects{}, fmt.Errorf("node %q: the %s program could not be started: %v", t.id, lang, err)
	}
	// The node's deadline (timeout_s) and the sandbox's timer are the same
	// length; when the deadline wins the race, the program was still
	// stopped for running too long, and code.ran must say so.
	if !res.TimedOut && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
	}
	ran := map[string]any{
		"language": lang, "backend": string(res.Backend), "exit_code": res.ExitCode,
		"timed_out": res.TimedOut, "stdout_bytes": len(res.Stdout), "stderr_bytes": len(res.Stderr),
		"output_truncated": res.OutputTruncated,
	}
	if len(res.Warnings) > 0 {
		ran["warnings"] = res.Warnings
	}
	if res.KillReason != "" {
		ran["kill_reason"] = res.KillReason
	}
	if err := t.emit(pendingEvent{EvCodeRan, t.id, ran}); err != nil {
		return nil, effects{}, err
	}
	switch {
	case res.TimedOut:
		return nil, effects{}, fmt.Errorf("node %q: the %s program timed out after %s (timeout_s); make it faster or raise timeout_s", t.id, lang, timeout)
	case res.Killed:
		return nil, effects{}, fmt.Errorf("node %q: the %s program was stopped: %s", t.id, lang, res.KillReason)
	case res.ExitCode != 0:
		return nil, effects{}, fmt.Errorf("node %q: the %s program exited with code %d%s", t.id, lang, res.ExitCode, stderrTail(res.Stderr))
	}
	out := map[string]any{"stdout": string(res.Stdout), "exit_code": res.ExitCode, "backend": string(res.Backend), "evidence_role": role}
	if res.IsJSON {
		out["json"] = res.Value
	}
	return out, effects{record: map[string]any{"evidence_role": role}}, nil
}

// codeStdin is the JSON document a code node reads on stdin.
func (t *task) codeStdin() ([]byte, error) {
	env := t.sc.env()
	nodes := map[string]any{}
	if t.gn != nil {
		all, _ := env["nodes"].(map[string]any)
		for _, e := range t.gn.in {
			if v, ok := all[e.From]; ok {
				nodes[e.From] = v
			}
		}
	}
	doc := map[string]any{"inputs": env["input"], "vars": env["vars"], "nodes": nodes}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("node %q: its stdin cannot be written as JSON: %v", t.id, err)
	}
	return b, nil
}

// codeDir makes the program's working directory: <work>/<node>-<attempt>
// under the run, or a temporary directory. It is removed afterwards.
func (t *task) codeDir() (string, func(), error) {
	base := t.r.cfg.Host.WorkDir
	if base == "" {
		d, err := os.MkdirTemp("", "agentlab-code-")
		if err != nil {
			return "", nil, fmt.Errorf("node %q: cannot create a working directory: %v", t.id, err)
		}
		return d, func() { os.RemoveAll(d) }, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", nil, fmt.Errorf("node %q: cannot create %s: %v", t.id, base, err)
	}
	d, err := os.MkdirTemp(base, unsafeDirChars.ReplaceAllString(t.id, "_")+fmt.Sprintf("-%d-", t.attempt))
	if err != nil {
		return "", nil, fmt.Errorf("node %q: cannot create a working directory: %v", t.id, err)
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// stderrTail is the end of a program's stderr, for an error message.
func stderrTail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 600 {
		s = "…" + string(r[len(r)-600:])
	}
	return ":\n" + s
}

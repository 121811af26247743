// Command agentlab compiles, runs, seals and verifies LLM/agent workflows.
// This package only wires cobra commands to the packages that do the work.
//
// Where it fits: docs/architecture.md#command-line.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/run/redact"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

// execute runs the CLI and maps errors to the documented exit codes.
func execute(args []string) int {
	stopProfiles := startProfiles()
	defer stopProfiles()
	root := newRootCmdFor(args)
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		// The shell asks for completions: only then are the completion
		// functions worth registering (walking every command's flags
		// costs more than a small lint).
		addCompletions(root)
	}
	// Whatever a command prints passes the secret filter: a value read
	// from secret.* or a provider key never reaches the terminal.
	stdout := &watchedWriter{w: redact.Writer(os.Stdout)}
	root.SetOut(stdout)
	root.SetErr(redact.Writer(os.Stderr))
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	code, msg := 2, err.Error() // anything cobra rejects (unknown flag, arg count) is usage
	var ee *exitError
	if errors.As(err, &ee) {
		code, msg = ee.code, ee.msg
	}
	msg = redact.String(msg)
	if msg != "" {
		fmt.Fprintln(os.Stderr, "agentlab: "+msg)
		// With --format json, stdout is one JSON document even when the
		// command fails before it printed its result.
		if !stdout.written && wantsJSON(cmd) {
			writeJSONError(os.Stdout, code, msg)
		}
	}
	return code
}

// watchedWriter notes whether anything was written through it.
type watchedWriter struct {
	w       io.Writer
	written bool
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.written = w.written || len(p) > 0
	return w.w.Write(p)
}

// wantsJSON reports whether the command that ran was asked for --format json.
func wantsJSON(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("format")
	return f != nil && f.Value.String() == "json"
}

// writeJSONError prints {"error": {"exit_code": N, "message": "…"}}.
func writeJSONError(w io.Writer, code int, msg string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"error": map[string]any{"exit_code": code, "message": msg}})
}

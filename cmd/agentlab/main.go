// Command agentlab compiles, runs, seals and verifies LLM/agent workflows.
// This package only wires cobra commands to the packages that do the work.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/agentlab/agentlab/run/redact"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

// execute runs the CLI and maps errors to the documented exit codes.
func execute(args []string) int {
	root := newRootCmd()
	// Whatever a command prints passes the secret filter: a value read
	// from secret.* or a provider key never reaches the terminal.
	root.SetOut(redact.Writer(os.Stdout))
	root.SetErr(redact.Writer(os.Stderr))
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "agentlab: "+redact.String(ee.msg))
		}
		return ee.code
	}
	// Anything cobra itself rejects (unknown flag, wrong arg count) is usage.
	fmt.Fprintln(os.Stderr, "agentlab: "+redact.String(err.Error()))
	return 2
}

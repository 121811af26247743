package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// completionExamples ends the help of cobra's generated `completion`
// commands with examples, like every other command's help (docs/cli.md).
// Their own text explains the set-up in prose; the examples give the
// commands to copy.
var completionExamples = map[string][]string{
	"completion": {
		"agentlab completion bash --help",
		"source <(agentlab completion bash)",
	},
	"bash": {
		"source <(agentlab completion bash)",
		"agentlab completion bash > /etc/bash_completion.d/agentlab",
	},
	"zsh": {
		"source <(agentlab completion zsh)",
		`agentlab completion zsh > "${fpath[1]}/_agentlab"`,
	},
	"fish": {
		"agentlab completion fish | source",
		"agentlab completion fish > ~/.config/fish/completions/agentlab.fish",
	},
	"powershell": {
		"agentlab completion powershell | Out-String | Invoke-Expression",
	},
}

// addCompletionExamples appends completionExamples to the completion
// command and its subcommands, once root.InitDefaultCompletionCmd has
// added them.
func addCompletionExamples(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		withExamples(c, completionExamples["completion"])
		for _, sub := range c.Commands() {
			withExamples(sub, completionExamples[sub.Name()])
		}
	}
}

func withExamples(c *cobra.Command, ex []string) {
	if len(ex) == 0 {
		return
	}
	long := strings.TrimRight(c.Long, "\n")
	if long == "" {
		long = c.Short + "."
	}
	c.Long = long + "\n\nExamples:\n  " + strings.Join(ex, "\n  ")
}

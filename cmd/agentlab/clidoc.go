package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// renderCLIDoc writes the command reference (docs/cli.md) from the cobra
// command tree, so the page can never drift from the binary: a test
// compares the file with this output.
func renderCLIDoc(root *cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString("# Command-line reference\n\n")
	b.WriteString("Generated from the commands themselves (`go test ./cmd/agentlab -run TestCLIDoc -update`); do not edit by hand.\n\n")
	b.WriteString("Global flags: `--no-color` (also `NO_COLOR`), `-q/--quiet`, `-v/--verbose`. Results go to stdout, progress and errors to stderr. " +
		"Colour is used only on a terminal and never with `NO_COLOR`, `TERM=dumb` or `--no-color`; tables are drawn with box-drawing characters on a terminal and in ASCII anywhere else. `--quiet` leaves only results and errors; `--verbose` adds detail to the progress of " +
		"`run`, `resume` and `eval` (each node's type, time, tokens and cost; each case's run and tier; failures in full) and says what `report` and `examples init` wrote. " +
		"Nothing prompts when stdin is not a terminal, with `--yes` or with `CI=true`. Every command that prints results takes `--format json`; with it, stdout is JSON even when the command fails before printing its result: `{\"error\": {\"exit_code\": N, \"message\": \"…\"}}` (the message is on stderr too). An unknown subcommand exits 2 with a did-you-mean. Codes are listed in [diagnostics.md](diagnostics.md).\n\n" +
		"Byte caps: every file a command reads whole has a cap, checked before it is read, and a file over it is refused with the cap's name, its value and how to raise it. " +
		"Each cap is set, in this order of precedence, by a command's flag where there is one (`verify --max-bytes`), an environment variable, the `[limits]` table of the working directory's `agentlab.toml` (when that file is trusted) and its default: " +
		"`flow_bytes` / `AGENTLAB_MAX_FLOW_BYTES` (flows, plans, cards, code files; 32 MiB), `input_bytes` / `AGENTLAB_MAX_INPUT_BYTES` (`--input-file`, `--fields-file`, `export --inputs`; 64 MiB), " +
		"`issuance_bytes` / `AGENTLAB_MAX_ISSUANCE_BYTES` (`issuance --metrics` and its narrative; 64 MiB), `source_bytes` / `AGENTLAB_MAX_SOURCE_BYTES` (data sources; 1 GiB), " +
		"`verify_bytes` / `AGENTLAB_MAX_VERIFY_BYTES` (a bundle or event log `verify` reads, or an artifact it re-hashes; 2 GiB), `events_bytes` / `AGENTLAB_MAX_EVENTS_BYTES` (a run's `events.jsonl`; 2 GiB), `record_bytes` / `AGENTLAB_MAX_RECORD_BYTES` (a run's `run.json`; 256 MiB). " +
		"A size is a whole number of bytes or a string with a unit (`source_bytes = \"4GiB\"`, `AGENTLAB_MAX_SOURCE_BYTES=4GiB`); zero, a negative size or an unknown key stops every command but `doctor` with exit 2 ([security.md](security.md#limits-on-what-is-read)).\n\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if c != root {
			// NonInheritedFlags merges the persistent flags of the
			// parents first, as running the command does, so that the
			// use line shows "[flags]" as the command's own help does.
			fl := c.NonInheritedFlags().FlagUsages()
			fmt.Fprintf(&b, "## %s\n\n", c.CommandPath())
			fmt.Fprintf(&b, "%s.\n\n", strings.TrimSuffix(c.Short, "."))
			fmt.Fprintf(&b, "```\n%s\n```\n\n", c.UseLine())
			if c.Long != "" {
				fmt.Fprintf(&b, "```text\n%s\n```\n\n", strings.TrimSpace(c.Long))
			}
			if strings.TrimSpace(fl) != "" {
				fmt.Fprintf(&b, "Flags:\n\n```\n%s```\n\n", fl)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return b.Bytes()
}

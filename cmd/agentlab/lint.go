package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/eval"
)

func init() { register("lint", newLintCmd) }

func newLintCmd() *cobra.Command {
	var format, tier string
	cmd := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Check flow files, preset patches and metric cards",
		Long: `Lint flow files (*.flow.yml, and *.yml/*.yaml with a top-level "agentlab:" key),
preset patches (*.patch.yml), metric cards (*.card.yml) and evaluation suites
(*.eval.yml). Directories are
walked. Every finding has file, line, column, a stable code and a fix.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 usage or unreadable input.

Examples:
  agentlab lint
  agentlab lint flows/ --format json
  agentlab lint flow.yml --tier governed
  agentlab lint . --format sarif > agentlab.sarif
  agentlab lint . --format github`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, diag.Formats...); err != nil {
				return err
			}
			if err := checkTier(tier); err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{"."}
			}
			list, err := compile.LintPaths(args, compile.Options{Tier: tier})
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			// Evaluation suites (*.eval.yml) are linted by package eval,
			// which compiles the flow each suite names.
			suites, err := eval.LintPaths(args)
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			list = append(list, suites...)
			if err := diag.Write(cmd.OutOrStdout(), format, list, diag.TextOptions{Color: useColor(os.Stdout), ToolVersion: version}); err != nil {
				return exitf(exitUsage, "%v", err)
			}
			if list.HasErrors() {
				return exitCode(exitFailed)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json|sarif|github")
	cmd.Flags().StringVar(&tier, "tier", "", "lint as if at least this tier: published|governed")
	return cmd
}

// checkTier validates a --tier value (empty means "as declared").
func checkTier(t string) error {
	switch t {
	case "", "exploratory", "published", "governed":
		return nil
	}
	return exitf(exitUsage, "--tier %q is not one of exploratory, published, governed", t)
}

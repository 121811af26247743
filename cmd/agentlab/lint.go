package main

import (
	"bytes"
	"io"
	"os"
	"strings"

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
(*.eval.yml). Directories are walked (hidden directories, node_modules and
testdata are passed over); a quoted glob pattern is expanded; "-" reads one flow
from standard input. Every finding has file, line, column, a stable code and a fix.

Under a directory, a plain YAML file with a top-level "nodes:" key, or a key that
is a misspelling of "agentlab", is linted as a flow (so a misspelt "agentlab:" is
an error naming the file); any other plain YAML file is named in the warning
W-LINT-NOT-A-FLOW. The last line says how many files were checked (JSON and
SARIF carry the same counts), and a lint that finds nothing to check fails.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 usage, unreadable
input or nothing to lint.

Examples:
  agentlab lint
  agentlab lint flows/ --format json
  agentlab lint 'flows/*.yml'
  agentlab lint flow.yml --tier governed
  cat flow.yml | agentlab lint -
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
			// A flow read from stdin ("-") is kept for the source excerpts.
			var stdin bytes.Buffer
			res, err := compile.Lint(args, compile.Options{Tier: tier}, io.TeeReader(cmd.InOrStdin(), &stdin))
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			list := res.Diagnostics
			// Evaluation suites (*.eval.yml) are linted by package eval,
			// which compiles the flow each suite names.
			if paths := res.Suites(); len(paths) > 0 {
				suites, err := eval.LintPaths(paths)
				if err != nil {
					return exitf(exitUsage, "%v", err)
				}
				list = append(list, suites...)
			}
			checked := &diag.Checked{}
			for _, f := range res.Checked {
				checked.Files = append(checked.Files, diag.CheckedFile{Path: f.Path, Kind: f.Kind.String()})
			}
			opts := diag.TextOptions{Color: useColor(os.Stdout), ToolVersion: version, Checked: checked, ReadFile: func(name string) ([]byte, error) {
				if name == compile.StdinName {
					return stdin.Bytes(), nil
				}
				return os.ReadFile(name)
			}}
			if err := diag.Write(cmd.OutOrStdout(), format, list, opts); err != nil {
				return exitf(exitUsage, "%v", err)
			}
			if len(res.Checked) == 0 {
				return exitf(exitUsage, "nothing to lint: no flow, card, patch or suite in %s; name the flow files, or the directory that holds them", strings.Join(args, " "))
			}
			if list.HasErrors() {
				return exitCode(exitFailed)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json|sarif|github")
	cmd.Flags().StringVar(&tier, "tier", "", "lint as if at least this tier: exploratory|published|governed (never weaker than the flow declares)")
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

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/plan"
)

func init() { register("compile", newCompileCmd) }

func newCompileCmd() *cobra.Command {
	var out, format, tier string
	cmd := &cobra.Command{
		Use:   "compile FLOW",
		Short: "Lint a flow and write its canonical plan; print the plan hash",
		Long: `Lint a flow, resolve presets, subflows, defaults and metric cards, and write the
canonical plan JSON. The plan hash (b3:<64 hex>, BLAKE3 of the canonical bytes)
is printed as the last line of stdout. Reformatting the YAML, reordering keys
or editing comments does not change the hash; any change of behaviour does.

-o writes the plan file anywhere (creating its directory): when it is not
beside the flow, the file also records the flow's directory relative to itself
("flow_dir", outside the hashed plan), so the plan reads the flow's data
sources, knowledge folders and agentlab.toml from there wherever it is run.

Without -o the plan is printed to stdout on one line, followed by the hash
(without "flow_dir": such a plan resolves paths from its own directory).
Diagnostics go to stderr. Exit codes: 0 compiled, 1 lint errors, 2 usage or
unreadable input.

Examples:
  agentlab compile flow.yml -o flow.plan.json
  agentlab compile flows/weekly.yml -o build/weekly.plan.json
  agentlab compile flow.yml --tier governed -o flow.plan.json
  agentlab compile flow.yml --format json -o flow.plan.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if err := checkTier(tier); err != nil {
				return err
			}
			if _, err := os.Stat(args[0]); err != nil {
				return exitf(exitUsage, "cannot read %s: %v", args[0], err)
			}
			p, list := compile.CompileFile(args[0], compile.Options{Tier: tier})
			stdout := cmd.OutOrStdout()
			if format == "text" {
				if err := diag.WriteText(cmd.ErrOrStderr(), list.Sorted(), diag.TextOptions{Color: useColor(os.Stderr)}); err != nil {
					return err
				}
			}
			var hash string
			if p != nil && !list.HasErrors() {
				enc, err := p.Encode() // the canonical bytes once, for the hash and the file
				if err != nil {
					return exitf(exitFailed, "canonical plan: %v", err)
				}
				hash = enc.Hash.String()
				switch out {
				case "", "-":
					if format == "text" {
						fmt.Fprintf(stdout, "%s\n", enc.Bytes)
					}
				default:
					// A plan written away from its flow records where the
					// flow's directory is, outside the hashed plan.
					fb, err := enc.File(plan.FlowDirFor(out, args[0]))
					if err != nil {
						return exitf(exitFailed, "canonical plan: %v", err)
					}
					if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
						return exitf(exitUsage, "write plan: %v", err)
					}
					if err := fsutil.WriteFileAtomic(out, fb, 0o644); err != nil {
						return exitf(exitUsage, "write plan: %v", err)
					}
				}
			}
			if format == "json" {
				errs, warns := list.Counts()
				if list == nil {
					list = diag.List{}
				}
				res := map[string]any{"diagnostics": list.Sorted(), "errors": errs, "warnings": warns, "plan": nil, "output": nil}
				if hash != "" {
					res["plan"] = hash
					if out != "" && out != "-" {
						res["output"] = out
					}
				}
				enc := json.NewEncoder(stdout)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else if hash != "" {
				fmt.Fprintln(stdout, hash)
			}
			if hash == "" {
				return exitCode(exitFailed)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the plan to this file (default: stdout)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	cmd.Flags().StringVar(&tier, "tier", "", "compile as if at least this tier: exploratory|published|governed (never weaker than the flow declares)")
	return cmd
}

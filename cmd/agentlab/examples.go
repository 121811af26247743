package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/examples"
)

func init() { register("examples", newExamplesCmd) }

func newExamplesCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "examples",
		Short: "List the built-in example flows or copy one to start from",
		Long: `List the built-in example flows, or copy one (flow, data and README) into a
directory to start from. Existing files are never overwritten.

Examples:
  agentlab examples list
  agentlab examples init minimal-qa my-flow`,
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the built-in examples",
		Long:  "List the built-in examples.\n\nExample:\n  agentlab examples list --format json",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			ex := examples.List()
			if format == "json" {
				if ex == nil {
					ex = []examples.Example{}
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(ex)
			}
			for _, e := range ex {
				fmt.Fprintf(cmd.OutOrStdout(), "%-20s %s\n", e.Name, e.Summary)
			}
			return nil
		},
	}
	list.Flags().StringVar(&format, "format", "text", "output format: text|json")
	initCmd := &cobra.Command{
		Use:   "init NAME [DIR]",
		Short: "Copy an example into DIR (default: ./NAME)",
		Long:  "Copy an example into DIR (default: ./NAME). Existing files are never overwritten.\n\nExample:\n  agentlab examples init traceable-weekly weekly",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if len(args) == 2 {
				dir = args[1]
			}
			written, err := examples.Init(args[0], dir)
			if errors.Is(err, examples.ErrUnknown) {
				return exitf(exitUsage, "%v; run 'agentlab examples list' to see the names", err)
			}
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			if !global.quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "copied %d files into %s\n", len(written), dir)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", dir)
			return nil
		},
	}
	cmd.AddCommand(list, initCmd)
	return cmd
}

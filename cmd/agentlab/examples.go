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
	var format, initFormat string
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
		Long: `Copy an example into DIR (default: ./NAME). Existing files are never
overwritten. The directory is printed on stdout; --verbose lists every file
copied (on stderr), --quiet says nothing but the directory. --format json
prints {"example":"NAME","dir":"DIR","files":[…]}, the paths written.

Examples:
  agentlab examples init traceable-weekly weekly
  agentlab examples init minimal-qa --format json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(initFormat, "text", "json"); err != nil {
				return err
			}
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
			if global.verbose && !global.quiet {
				for _, w := range written {
					fmt.Fprintf(cmd.ErrOrStderr(), "copied %s\n", w)
				}
			}
			if !global.quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "copied %d files into %s\n", len(written), dir)
			}
			if initFormat == "json" {
				if written == nil {
					written = []string{}
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetEscapeHTML(false)
				return enc.Encode(map[string]any{"example": args[0], "dir": dir, "files": written})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", dir)
			return nil
		},
	}
	initCmd.Flags().StringVar(&initFormat, "format", "text", "output format: text|json")
	cmd.AddCommand(list, initCmd)
	return cmd
}

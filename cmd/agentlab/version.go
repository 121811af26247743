package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set with -ldflags "-X main.version=…" in release builds.
var version = "0.1.0-dev"

func init() { register("version", newVersionCmd) }

func newVersionCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print version, commit and Go version",
		Long:  "Print version, commit and Go version.\n\nExample:\n  agentlab version --format json",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			commit := "unknown"
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						commit = s.Value
					}
				}
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return json.NewEncoder(out).Encode(map[string]string{"version": version, "commit": commit, "go": runtime.Version()})
			}
			fmt.Fprintf(out, "agentlab %s (commit %s, %s)\n", version, commit, runtime.Version())
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/run"
)

func init() { register("trust", newTrustCmd) }

// newTrustCmd records that the user trusts the agentlab.toml of a
// directory whoever owns it: a file another user could have written is
// otherwise refused, because it decides permissions, fetch ranges, MCP
// servers, provider URLs and secret hosts.
func newTrustCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "trust DIR",
		Short: "Trust the agentlab.toml of DIR although another user could have written it",
		Long: `Trust the agentlab.toml in DIR although another user owns it, or the group or
everyone may write it. Such a file is otherwise refused by run, resume, eval
and doctor (E-CONFIG-UNTRUSTED), because it decides what a run may do:
permission rules, private ranges for http_fetch, MCP servers, provider base
URLs and the hosts secrets go to. Read the file first.

The directory is recorded, as an absolute path, in a [[trust]] table of the
user's config file ($XDG_CONFIG_HOME/agentlab/config.toml); delete the table
to withdraw the trust. Trusting a directory twice records it once.

With --format json it prints {"trusted": "<DIR>/agentlab.toml", "recorded_in":
"<user config file>"}.

Examples:
  agentlab trust /srv/shared/project
  agentlab trust .. --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			file, err := run.Trust(args[0])
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			abs, _ := filepath.Abs(args[0])
			trusted := filepath.Join(abs, "agentlab.toml")
			if format == "json" {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]string{"trusted": trusted, "recorded_in": file})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "trusted %s (recorded in %s)\n", trusted, file)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

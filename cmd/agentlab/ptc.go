package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/presets/ptc"
)

func init() { register("ptc", newPTCCmd) }

func newPTCCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ptc",
		Short: "Inspect code mode (PTC): evaluate the permission chain",
		Long: `Code mode (PTC) folds an agent's tools into one run_code tool plus a generated
SDK. Whether it applies to an agent node is decided by a chain of PTC_*
settings (environment first, then the [ptc] table of the nearest
agentlab.toml); see docs/ptc.md.

Examples:
  agentlab ptc decide --user alice --toolset sales
  PTC_MODE=on PTC_DEBUG=opt-in agentlab ptc decide --toolset sales --title "brief useptc" --format json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitf(exitUsage, "ptc needs a subcommand: decide\nRun 'agentlab ptc --help' for usage.")
			}
			return unknownSubcommand("agentlab ptc", args[0], []string{"decide"})
		},
	}
	cmd.AddCommand(newPTCDecideCmd())
	return cmd
}

func newPTCDecideCmd() *cobra.Command {
	var (
		format, user, title string
		toolsets            []string
	)
	cmd := &cobra.Command{
		Use:   "decide [--user U] [--toolset K]... [--title T]",
		Short: "Evaluate the PTC permission chain for one agent node",
		Long: `Evaluate the PTC permission chain for one agent node and print the decision:
whether code mode applies, the debug filter in force, and the link of the
chain that decided. Warnings about invalid settings go to stderr.

Settings, highest priority first: PTC_MODE, PTC_USER_ALLOWLIST,
PTC_TOOLSET_BLOCKLIST, PTC_TOOLSET_ALLOWLIST, PTC_ROLLOUT_PERCENT (with
PTC_ROLLOUT_SALT), PTC_DEBUG. Each falls back to the [ptc] table of the
nearest agentlab.toml, then to its default.

JSON output: {"enabled": bool, "debug_mode": "opt-in"|"opt-out"|null, "reason": "…"}

Exit codes: 0 decided (either way), 2 usage or unreadable agentlab.toml.

Examples:
  agentlab ptc decide --user alice --toolset sales --toolset hr
  PTC_MODE=partial PTC_USER_ALLOWLIST=alice agentlab ptc decide --user alice --toolset sales --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if !cmd.Flags().Changed("user") {
				user = os.Getenv("USER")
			}
			if user == "" {
				return exitf(exitUsage, "no user: pass --user or set USER")
			}
			wd, err := os.Getwd()
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			file, err := ptc.LoadFileConfig(wd)
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			cfg, _ := ptc.ConfigFromEnv(os.Getenv, file)
			d := ptc.Decide(cfg, user, toolsets, title)
			for _, w := range d.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "agentlab: warning: "+w)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return presetsJSONOut(out, d)
			}
			debug := "none"
			if d.DebugMode != nil {
				debug = *d.DebugMode
			}
			state := "off"
			if d.Enabled {
				state = "on"
			}
			fmt.Fprintf(out, "ptc:     %s\ndebug:   %s\nreason:  %s\n", state, debug, d.Reason)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	cmd.Flags().StringVar(&user, "user", "", "user id the chain decides for (default $USER)")
	cmd.Flags().StringArrayVar(&toolsets, "toolset", nil, "a toolset of the agent node (repeat for several)")
	cmd.Flags().StringVar(&title, "title", "", "the agent node's title (read by the PTC_DEBUG filter)")
	return cmd
}

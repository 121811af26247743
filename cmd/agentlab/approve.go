package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/engine"
)

func init() { register("approve", newApproveCmd) }

func newApproveCmd() *cobra.Command {
	var (
		decision, by, comment, dir, format string
	)
	cmd := &cobra.Command{
		Use:   "approve RUN NODE --decision approve|reject",
		Short: "Record a person's decision on a human node a run is waiting at",
		Long: `Record one person's decision on a human node of a run that paused there
(exit code 3 of agentlab run). The decision is appended to the run's event log
as a human.decided event, under the run's lock; the node is decided when the
run is resumed (agentlab resume RUN), which also evaluates its deadline.

Only an explicit approval approves: approve, approved, yes, y, true, 同意,
批准 or 通过 (case-insensitive). Any other answer is recorded as a rejection.
Nothing ever approves by itself: not --yes, not a deadline.

With decision: all or quorum:M on the node, each assignee records their own
decision (--by); a person's latest decision replaces their earlier one.
RUN may be a unique prefix of a run id.

Exit codes: 0 recorded, 2 usage (unknown run or node, a run that is not
waiting, a person who is not an assignee, a run in use).

Examples:
  agentlab approve 20261129T101500Z-1a2b3c gate --decision approve
  agentlab approve 2026 gate --decision reject --by alice --comment "numbers look off"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if decision == "" {
				return exitf(exitUsage, "--decision is required: approve or reject")
			}
			d := dataDir(dir)
			id, err := pickRun(d, args[0])
			if err != nil {
				return err
			}
			if by == "" {
				by = os.Getenv("USER")
			}
			epoch, err := run.SourceDateEpoch()
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			res, err := run.Approve(run.ApproveOptions{DataDir: d, RunID: id, Node: args[1], Answer: decision, By: by, Comment: comment, Epoch: epoch})
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				return enc.Encode(map[string]any{
					"run": res.RunID, "node": res.Node, "approved": res.Approved, "verdict": res.Verdict,
					"approvals": res.Approvals, "rejections": res.Rejections, "resume": res.Resume,
				})
			}
			what := "rejection"
			if res.Approved {
				what = "approval"
			}
			fmt.Fprintf(out, "recorded %s of %s by %s on run %s\n", what, res.Node, by, res.RunID)
			switch res.Verdict {
			case engine.VerdictPending:
				fmt.Fprintf(out, "%s is still waiting (%d approvals, %d rejections so far)\n", res.Node, res.Approvals, res.Rejections)
			default:
				fmt.Fprintf(out, "%s is decided: %s; continue with:\n  %s\n", res.Node, res.Verdict, res.Resume)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&decision, "decision", "", "approve or reject (only an explicit approval approves)")
	fl.StringVar(&by, "by", "", "who decides (default $USER)")
	fl.StringVar(&comment, "comment", "", "a comment kept with the decision")
	fl.StringVar(&dir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	fl.StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

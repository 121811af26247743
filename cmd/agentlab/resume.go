package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run"
)

func init() { register("resume", newResumeCmd) }

func newResumeCmd() *cobra.Command {
	var (
		planFile, dir, format string
		sign                  string
		parallel              int
		yes, inline           bool
	)
	cmd := &cobra.Command{
		Use:   "resume RUN",
		Short: "Continue a failed or interrupted run without redoing finished nodes",
		Long: `Continue a run that failed, was interrupted (Ctrl-C, a crash, kill -9) or was
cancelled. The run's event log is verified first (an incomplete last line
left by a crash is set aside); every node it records as finished is restored
from its recorded output and never executed again; the rest runs as before.
On a run that already finished, resume prints its result and changes
nothing, except that a sealed run whose report.html or bundle.html is
missing (killed between the seal and writing them) gets them written.
RUN may be a unique prefix of a run id.

An exploratory run may continue under a changed node configuration with
--plan FILE (a flow or a plan) when its nodes, types and edges are the same;
finished nodes keep their recorded outputs. A formal run always continues
with the plan it started with.

--sign KEY signs the seal when the run finishes (as agentlab run --sign does;
a run that paused at a person is sealed only by the resume that finishes it).

Exit codes are those of agentlab run.

Examples:
  agentlab resume 20261129T101500Z-1a2b3c
  agentlab resume 2026 --format json
  agentlab resume 20261129T101500Z-1a2b3c --plan flow.yml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			d := dataDir(dir)
			id, err := pickRun(d, args[0])
			if err != nil {
				return err
			}
			key, err := signingKey(sign)
			if err != nil {
				return err
			}
			var p *plan.Plan
			var h hashid.ID
			if planFile != "" {
				lp, err := loadPlan(cmd, planFile)
				if err != nil {
					return err
				}
				p, h = lp.plan, lp.hash
			}
			epoch, err := run.SourceDateEpoch()
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			prog := newProgress(global.quiet)
			out, err := run.Resume(ctx, run.ResumeOptions{DataDir: d, RunID: id, Plan: p, PlanHash: h, Parallel: parallel, Epoch: epoch, Observe: prog.observe, Interaction: interaction(yes, inline, prog), Warn: printWarnings(cmd)})
			prog.close()
			if err != nil {
				return runError(cmd, format, err)
			}
			switch {
			case !out.Finished:
				exportEvidence(d, out, key)
			case out.Report == "" && out.Seal != "":
				// Sealed, but killed before its pages were written (or
				// they were removed): writing them is part of finishing.
				exportEvidence(d, out, key)
				if out.Report != "" {
					out.Finished = false
					if !global.quiet {
						fmt.Fprintf(os.Stderr, "run %s was sealed but its report.html and bundle.html were missing; they were written from the sealed evidence\n", out.RunID)
					}
				}
			}
			return report(cmd.OutOrStdout(), format, "", out)
		},
	}
	cmd.Flags().StringVar(&planFile, "plan", "", "continue under this flow or plan (exploratory runs, same topology)")
	cmd.Flags().StringVar(&sign, "sign", "", "sign the seal with this ed25519 private key file (agentlab keys generate)")
	cmd.Flags().StringVar(&dir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	cmd.Flags().IntVar(&parallel, "parallel", 0, "nodes that may work at once (default as the run started)")
	cmd.Flags().BoolVar(&yes, "yes", false, "never prompt; allow tool calls that would be asked (never approves a human node)")
	cmd.Flags().BoolVar(&inline, "interactive", false, "on a terminal, ask human nodes' questions inline instead of pausing")
	return cmd
}

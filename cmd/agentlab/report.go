package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
)

func init() { register("report", newReportCmd) }

func newReportCmd() *cobra.Command {
	var dir, out, sign, format string
	cmd := &cobra.Command{
		Use:   "report [RUN] [-o DIR] [--sign KEY]",
		Short: "Write report.html and bundle.html for a sealed run",
		Long: `Write (again) report.html and bundle.html for a sealed run.

Both are rendered from the sealed events and artifacts only, so the same run
always gives byte-identical files. report.html is the readable report: every
number, cell, name and quotation opens a panel with its source (formula, SQL,
the cited rows). bundle.html holds the same report plus the evidence and a
script that verifies it all offline in a browser; agentlab verify performs the
same checks.

RUN defaults to the latest run and may be a unique prefix of a run id. DIR
defaults to the directory of the run's recorded report, else
<data-dir>/out/<run-id>. With --sign KEY the seal is signed (ed25519, see
agentlab keys generate) and the signature recorded in run.json, so the bundle
and later exports carry it.

--format json prints {"run":"…","seal":"b3:…","report":"…","bundle":"…"}.
--verbose also says on stderr what was signed and how large each file is.

Examples:
  agentlab report
  agentlab report 20261129T1200 -o public/
  agentlab report --sign ~/.config/agentlab/team.key`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			key, err := signingKey(sign)
			if err != nil {
				return err
			}
			d := dataDir(dir)
			arg := ""
			if len(args) > 0 {
				arg = args[0]
			}
			id, err := pickRun(d, arg)
			if err != nil {
				return err
			}
			snap, err := runlog.OpenReadOnly(d, id)
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			rec := snap.Record
			if rec.Seal == "" {
				return exitf(exitUsage, "run %s is not sealed (status %s): only a finished run has a report; continue it with: %s", id, rec.Status, run.ResumeCommand(d, id))
			}
			if out == "" {
				out = filepath.Join(d, "out", id)
				if rec.Report != "" {
					out = filepath.Dir(rec.Report)
				}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return exitf(exitUsage, "cannot create %s: %v", out, err)
			}
			o := &run.Outcome{RunID: id, Seal: rec.Seal, OutDir: out}
			if err := writeRunEvidence(d, o, key); err != nil {
				return exitf(exitUsage, "report of run %s: %v", id, err)
			}
			if global.verbose && !global.quiet {
				reportVerbose(cmd.ErrOrStderr(), o, key != nil)
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				b, _ := json.Marshal(map[string]string{"run": id, "seal": rec.Seal, "report": o.Report, "bundle": o.Bundle})
				fmt.Fprintf(w, "%s\n", b)
				return nil
			}
			fmt.Fprintf(w, "report: %s\nbundle: %s\nseal:   %s\n", o.Report, o.Bundle, rec.Seal)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	fl.StringVarP(&out, "out", "o", "", "directory to write report.html and bundle.html into")
	fl.StringVar(&sign, "sign", "", "sign the seal with this ed25519 private key file (agentlab keys generate)")
	fl.StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// reportVerbose tells, for --verbose, what report wrote: the signature and
// the size of each file.
func reportVerbose(w io.Writer, o *run.Outcome, signed bool) {
	if signed {
		fmt.Fprintf(w, "signed the seal %s (ed25519)\n", o.Seal)
	}
	for _, path := range []string{o.Report, o.Bundle} {
		if fi, err := os.Stat(path); err == nil {
			fmt.Fprintf(w, "wrote %s (%d bytes)\n", path, fi.Size())
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/share"
	"github.com/agentlab/agentlab/run/store/bucket"
)

func init() { register("publish", newPublishCmd) }

func newPublishCmd() *cobra.Command {
	var storeURL, dir, format string
	cmd := &cobra.Command{
		Use:   "publish [RUN] --store URL",
		Short: "Publish a sealed run to a shared store",
		Long: `Publish a sealed run of the data directory to the shared store (an
S3-compatible bucket): its artifacts first, then its event log, record and
pages under its seal, and runs/RUN/SEAL last, the commit point. agentlab run
--store does this when a run finishes; publish does it for a run finished
earlier, or again after a publish was interrupted.

Every object is written once (a conditional PUT; first writer wins). A run
the bucket holds already under the same seal is left as it is, except that
any of its objects that went missing (deleted under the committed SEAL) is
put back; under another seal the publish is refused ("not reproducible"),
naming both seals.

RUN defaults to the latest run and may be a unique prefix of a run id.

Exit codes: 0 published (or already there), 1 not reproducible or a write
failed, 2 usage, not sealed, or the store cannot be reached.

Examples:
  agentlab publish --store s3://team-runs/agentlab
  agentlab publish 37aac58f --store "s3://runs/?endpoint=http://127.0.0.1:7070&path_style=true"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
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
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			defer cancel()
			b, err := openSharedStore(ctx, storeURL, storeDir(""))
			if err != nil {
				return err
			}
			if b == nil {
				return exitf(exitUsage, "publish needs a shared store: give --store s3://BUCKET/PREFIX (or set %s)", envStore)
			}
			w := cmd.ErrOrStderr()
			if format != "json" {
				w = cmd.OutOrStdout()
			}
			p, err := publishTo(ctx, b, d, id, w)
			if err != nil {
				return shareError(err)
			}
			if format == "json" {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&storeURL, "store", "", storeHelp)
	cmd.Flags().StringVar(&dir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

// shareError maps publish and pull errors to exit codes: a run that is not
// there or not sealed, or a store that cannot be read, is usage (2); a copy
// that does not match (another seal, a corrupt blob) is a failure (1).
func shareError(err error) error {
	switch {
	case errors.Is(err, share.ErrNotSealed), errors.Is(err, runlog.ErrNoRun), errors.Is(err, runlog.ErrBadID), bucket.Unreachable(err):
		return exitf(exitUsage, "%v", err)
	case errors.Is(err, share.ErrNotReproducible), errors.Is(err, bucket.ErrTooLarge):
		return exitf(exitFailed, "%v", err)
	}
	return exitf(exitFailed, "%v", err)
}

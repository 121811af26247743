package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/run/share"
)

func init() { register("pull", newPullCmd) }

func newPullCmd() *cobra.Command {
	var storeURL, dir, format string
	cmd := &cobra.Command{
		Use:   "pull RUN --store URL",
		Short: "Copy a sealed run from a shared store into the data dir",
		Long: `Copy a sealed run from the shared store (an S3-compatible bucket) into the
data directory: its event log and record, every artifact it needs (each
re-hashed before it is kept), and its report.html and bundle.html into
<data-dir>/out/RUN/. Nothing from the bucket is trusted: check the copy
offline with agentlab verify, pinned to the seal you expect.

A run the data dir holds already under the same seal is completed (missing
artifacts fetched); under another seal the pull is refused.

Exit codes: 0 pulled, 1 the bucket's copy is damaged or holds another seal,
2 usage, no such run, or the store cannot be reached.

Examples:
  agentlab pull 37aac58f32cfb555 --store s3://team-runs/agentlab
  agentlab pull 37aac58f32cfb555 --store "s3://runs/?endpoint=http://127.0.0.1:7070&path_style=true" --data-dir audit
  agentlab verify audit/runs/37aac58f32cfb555 --expect b3:…`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			defer cancel()
			b, err := openSharedStore(ctx, storeURL, storeDir(""))
			if err != nil {
				return err
			}
			if b == nil {
				return exitf(exitUsage, "pull needs a shared store: give --store s3://BUCKET/PREFIX (or set %s)", envStore)
			}
			p, err := share.Pull(ctx, b, dataDir(dir), args[0])
			if err != nil {
				return shareError(err)
			}
			if format == "json" {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(p)
			}
			w := cmd.OutOrStdout()
			if p.Present {
				fmt.Fprintf(w, "run %s was here already (seal %s); %d missing artifacts fetched\n", p.Run, p.Seal, p.Fetched)
			} else {
				fmt.Fprintf(w, "pulled run %s (seal %s, %d artifacts)\n", p.Run, p.Seal, p.Artifacts)
			}
			fmt.Fprintf(w, "run dir %s\n", p.Dir)
			if p.Bundle != "" {
				fmt.Fprintf(w, "bundle %s\n", p.Bundle)
			}
			fmt.Fprintf(w, "check it: agentlab verify %s --expect %s\n", shellQuote(p.Dir), p.Seal)
			return nil
		},
	}
	cmd.Flags().StringVar(&storeURL, "store", "", storeHelp)
	cmd.Flags().StringVar(&dir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text|json")
	return cmd
}

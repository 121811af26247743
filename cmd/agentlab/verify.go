package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/verify"
)

func init() { register("verify", newVerifyCmd) }

func newVerifyCmd() *cobra.Command {
	var (
		expect, pubkey, format, artifacts string
		maxBytes                          int64
	)
	cmd := &cobra.Command{
		Use:   "verify BUNDLE.html|RUN_DIR [--expect b3:…] [--pubkey FILE]",
		Short: "Check a bundle or a run directory against its seal, offline",
		Long: `Check a bundle.html, or a run directory, against its seal, offline: every
artifact re-hashed, the event chain, the seal recomputed from the events, the
plan, the evidence ledger, every metric recomputed from its cited cells, the
visible report compared byte for byte with what the sealed evidence renders
to, and the signature. One line per check. A bundle whose bytes differ from
the export only where no HTML reader sees a difference (line endings, a
byte-order mark, spacing inside tags) is the same document: it verifies, with
a note.

Integrity is proven against the seal the file carries. Who produced it is only
established by --expect (the seal hash published somewhere you trust: a CI log,
a commit) or by --pubkey (the seal must be signed with that ed25519 key).
Events appended after the seal are listed, never counted as failures.

--format json prints {"ok":…,"seal":"b3:…","plan":"b3:…","checks":[{"name","ok","detail"}]},
and for a bundle "byte_exact": whether the file is byte for byte the export.
Exit codes: 0 every check passes, 1 a check fails, 2 the input cannot be read.
See docs/verify.md for the checks and what they prove.

Examples:
  agentlab verify out/bundle.html
  agentlab verify out/bundle.html --expect b3:4f2a… --pubkey team.key.pub
  agentlab verify .agentlab/runs/20261129T120000Z-a1b2c3 --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			if maxBytes < 0 {
				return exitf(exitUsage, "--max-bytes %d is negative; give a size in bytes (0 means the verify_bytes cap in force, 2 GiB unless [limits] or AGENTLAB_MAX_VERIFY_BYTES set it)", maxBytes)
			}
			opt := verify.Options{Expect: expect, ArtifactsDir: artifacts, MaxBytes: maxBytes}
			if pubkey != "" {
				k, err := verify.LoadPublicKey(pubkey)
				if err != nil {
					return exitf(exitUsage, "--pubkey: %v", err)
				}
				opt.PublicKey, opt.PublicKeyName = k, pubkey
			}
			res, err := verify.Verify(args[0], opt)
			if err != nil {
				var ue *verify.UnreadableError
				if errors.As(err, &ue) {
					return exitf(exitUsage, "cannot verify %s: %v", args[0], err)
				}
				return exitf(exitUsage, "%v", err)
			}
			if err := printVerify(cmd.OutOrStdout(), format, res); err != nil {
				return err
			}
			if !res.OK {
				return exitCode(exitFailed)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&expect, "expect", "", "the seal hash (b3:…) the input must have, from a place you trust")
	fl.StringVar(&pubkey, "pubkey", "", "the ed25519 public key file the seal must be signed with")
	fl.StringVar(&format, "format", "text", "output format: text or json")
	fl.StringVar(&artifacts, "artifacts", "", "artifact store of a run directory (default: <data-dir>/artifacts above it)")
	fl.Int64Var(&maxBytes, "max-bytes", 0, "largest bundle, event log or artifact to read (default: the verify_bytes cap, 2 GiB)")
	return cmd
}

func printVerify(w io.Writer, format string, res *verify.Result) error {
	if format == "json" {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	failed := 0
	for _, c := range res.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(w, "%s  %-9s  %s\n", mark, c.Name, c.Detail)
	}
	if res.OK {
		fmt.Fprintf(w, "verified: seal %s, plan %s\n", res.Seal, res.Plan)
		if res.ByteExact != nil && !*res.ByteExact {
			fmt.Fprintf(w, "note: the file is the export's document, not its bytes: they differ only where no HTML reader sees a difference (line endings, a byte-order mark, spacing inside tags, how a character is escaped)\n")
		}
	} else if res.Seal == "" {
		fmt.Fprintf(w, "NOT VERIFIED: not sealed; %d of %d checks failed\n", failed, len(res.Checks))
	} else {
		fmt.Fprintf(w, "NOT VERIFIED: %d of %d checks failed (seal %s)\n", failed, len(res.Checks), res.Seal)
	}
	return nil
}

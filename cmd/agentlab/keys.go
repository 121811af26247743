package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/verify"
)

func init() { register("keys", newKeysCmd) }

func newKeysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys generate [-o FILE]",
		Short: "Create an ed25519 key pair for signing seals",
		Long: `Create an ed25519 key pair for signing seals (agentlab run --sign FILE,
agentlab report --sign FILE) and checking them (agentlab verify --pubkey FILE.pub).

FILE (default agentlab.key) receives the private key, PKCS#8 in a PEM block
"PRIVATE KEY", readable by its owner only (0600); FILE.pub receives the public
key, PKIX in a PEM block "PUBLIC KEY". Both are what openssl writes for ed25519
keys. Existing files are never overwritten. Keep the private key out of the
repository; publish the .pub file where verifiers can find it.

--format json prints {"private":"FILE","public":"FILE.pub","key_id":"ed25519:…"}.

Examples:
  agentlab keys generate -o ~/.config/agentlab/team.key
  agentlab run flow.yml --sign ~/.config/agentlab/team.key
  agentlab verify out/bundle.html --pubkey team.key.pub`,
	}
	var out, format string
	gen := &cobra.Command{
		Use:   "generate [-o FILE]",
		Short: "Write a new key pair to FILE and FILE.pub",
		Long: `Write a new ed25519 key pair: FILE (private, mode 0600) and FILE.pub (public).
Existing files are never overwritten.

Examples:
  agentlab keys generate
  agentlab keys generate -o ci-signing.key --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			pub, err := verify.GenerateKey(out)
			if err != nil {
				return exitf(exitUsage, "keys generate: %v; choose another file with -o, or remove the old key first", err)
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				b, _ := json.Marshal(map[string]string{"private": out, "public": out + ".pub", "key_id": verify.KeyID(pub)})
				fmt.Fprintf(w, "%s\n", b)
				return nil
			}
			fmt.Fprintf(w, "private key: %s (keep it secret)\npublic key:  %s\nkey id:      %s\n", out, out+".pub", verify.KeyID(pub))
			return nil
		},
	}
	gen.Flags().StringVarP(&out, "out", "o", "agentlab.key", "private key file; the public key goes to FILE.pub")
	gen.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.AddCommand(gen)
	return cmd
}

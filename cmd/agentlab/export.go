package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/eval"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/argo"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/store/bucket"
)

func init() { register("export", newExportCmd) }

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export argo SUITE.eval.yml|PLAN.json",
		Short: "Write a workflow for an existing engine (Argo Workflows)",
		Long: `Write a workflow that an existing engine runs, each task starting agentlab
with a shared store (--store) as the only thing the tasks share.

  argo SUITE.eval.yml --shards N   N tasks "agentlab eval SUITE --shard i/N
                                   --store URL", then one task "agentlab eval
                                   SUITE --merge-shards N --store URL", whose
                                   exit code is the evaluation's
  argo PLAN.json --inputs F.jsonl  one task "agentlab run PLAN --input-file …
                                   --store URL" per line of F (a JSON object
                                   of inputs per line), given as a raw artifact

The suite or plan path is resolved inside the image, from --workdir. With
SOURCE_DATE_EPOCH or AGENTLAB_SANDBOX set, each task gets the same value, so
that the tasks' seals are the ones a local run gives. The workflow is plain
YAML on stdout (or -o FILE): submit it with argo submit, or kubectl create.

Examples:
  agentlab export argo flows/weekly.eval.yml --shards 8 --image ghcr.io/acme/flows:1.4 --store s3://team-runs/agentlab
  agentlab export argo weekly.plan.json --inputs weeks.jsonl --image ghcr.io/acme/flows:1.4 --store s3://team-runs/agentlab -o batch.yaml`,
	}
	cmd.AddCommand(newExportArgoCmd())
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return exitf(exitUsage, "name an engine: agentlab export argo …\nRun 'agentlab export --help' for usage.")
	}
	return cmd
}

func newExportArgoCmd() *cobra.Command {
	var o argo.Options
	var shards int
	var inputs, out, provider, model string
	var variants []string
	cmd := &cobra.Command{
		Use:   "argo SUITE.eval.yml|PLAN.json",
		Short: "Write an Argo Workflow: eval shards then their merge, or one run per input line",
		Long: `Write an Argo Workflow (YAML) whose tasks start agentlab and share only the
store named by --store. With a suite: --shards N shard tasks, then the merge.
With a compiled plan: one run per line of --inputs. See agentlab export --help.

Examples:
  agentlab export argo suite.eval.yml --shards 4 --image ghcr.io/acme/flows:1.4 --store s3://runs/agentlab
  agentlab export argo weekly.plan.json --inputs weeks.jsonl --image ghcr.io/acme/flows:1.4 --store s3://runs/agentlab`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if _, err := bucket.ParseLocation(o.Store); err != nil && o.Store != "" {
				return exitf(exitUsage, "--store: %v", err)
			}
			for _, name := range []string{"SOURCE_DATE_EPOCH", "AGENTLAB_SANDBOX"} {
				if v := os.Getenv(name); v != "" {
					o.Env = append(o.Env, argo.EnvVar{Name: name, Value: v})
				}
			}
			var w *argo.Workflow
			var err error
			if strings.HasSuffix(path, ".json") {
				if shards != 0 {
					return exitf(exitUsage, "--shards splits an evaluation suite; a plan takes --inputs FILE (one JSON object per line)")
				}
				b, rerr := fsutil.ReadFileCapped(path, fsutil.InputCap.Bytes(), "a compiled plan is far smaller; "+fsutil.InputCap.Hint())
				if rerr != nil {
					return exitf(exitUsage, "%v", rerr)
				}
				p, _, perr := plan.Decode(b)
				if perr != nil {
					return exitf(exitUsage, "%s: %v", path, perr)
				}
				if inputs == "" {
					return exitf(exitUsage, "--inputs FILE is required with a plan: one JSON object of inputs per line, one task each")
				}
				lines, lerr := inputLines(inputs)
				if lerr != nil {
					return exitf(exitUsage, "%v", lerr)
				}
				o.Name = p.Name
				o.Extra = runExtra(provider, model)
				w, err = argo.PlanBatch(path, lines, o)
			} else {
				if inputs != "" {
					return exitf(exitUsage, "--inputs belongs to a plan; an evaluation suite takes --shards N")
				}
				s, _, _, l := suite.Load(path, eval.CompileFlow)
				if s == nil {
					return exitf(exitUsage, "%s cannot be exported: %v (agentlab lint %s)", path, l, path)
				}
				if shards == 0 {
					shards = 1
				}
				o.Name = s.Name
				o.Extra = runExtra(provider, model)
				for _, v := range variants {
					o.Extra = append(o.Extra, "--variant", v)
				}
				w, err = argo.EvalShards(path, shards, o)
			}
			if err != nil {
				return exitf(exitUsage, "%v", err)
			}
			y, err := w.YAML()
			if err != nil {
				return exitf(exitFailed, "%v", err)
			}
			if out != "" {
				if err := writeFileWith(out, func(wr io.Writer) error { _, err := wr.Write(y); return err }); err != nil {
					return exitf(exitFailed, "-o: %v", err)
				}
				return nil
			}
			_, err = cmd.OutOrStdout().Write(y)
			return err
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&shards, "shards", 0, "split the evaluation into N shard tasks (default 1)")
	fl.StringVar(&inputs, "inputs", "", "a plan's batch: one JSON object of inputs per line, one task each")
	fl.StringVar(&o.Image, "image", "", "container image with agentlab and the suite or plan in it (required)")
	fl.StringVar(&o.Store, "store", "", "the shared store every task publishes to (required): s3://BUCKET/PREFIX?endpoint=URL&path_style=true")
	fl.StringVar(&o.WorkingDir, "workdir", "", "working directory in the image, where the suite or plan path resolves")
	fl.StringVar(&provider, "provider", "", "provider every task uses: mock|script:FILE|openai|anthropic")
	fl.StringVar(&model, "model", "", "model every task uses")
	fl.StringArrayVar(&variants, "variant", nil, "evaluation: run only this variant (repeatable)")
	fl.StringVarP(&out, "output", "o", "", "write the workflow to FILE instead of stdout")
	return cmd
}

func runExtra(provider, model string) []string {
	var extra []string
	if provider != "" {
		extra = append(extra, "--provider", provider)
	}
	if model != "" {
		extra = append(extra, "--model", model)
	}
	return extra
}

// inputLines reads a JSON Lines file of input objects, compacting each
// line; blank lines are skipped.
func inputLines(path string) ([]string, error) {
	b, err := fsutil.ReadFileCapped(path, fsutil.InputCap.Bytes(), "split the batch into several files; "+fsutil.InputCap.Hint())
	if err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), int(min(fsutil.InputCap.Bytes(), 1<<40)))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object of inputs: %v", path, n, err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, line); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		lines = append(lines, c.String())
	}
	return lines, sc.Err()
}

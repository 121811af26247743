package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/agentlab/agentlab/eval"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/share"
	"github.com/agentlab/agentlab/run/store/bucket"
)

// publishWorkers is how many case runs an evaluation publishes at once.
const publishWorkers = 8

// maxEvalResult caps a shard result read from a shared store.
const maxEvalResult = 256 << 20

// evalResultKey is where a shared store keeps the latest result of the
// evaluation whose ConfigID is id (one per shard).
func evalResultKey(b *bucket.Bucket, id string) string { return b.Loc.Key("evals", id+".json") }

// publishEval publishes what an evaluation sealed: every sealed case run
// that has a run directory (--run-dirs), then the evaluation's record
// (with the event logs of the cases run in memory), then its result under its ConfigID, which
// replaces an earlier result of the same suite, options and shard.
func publishEval(ctx context.Context, b *bucket.Bucket, o eval.Options, res *eval.Result, w io.Writer) error {
	// Case runs are independent: publish several at once (blobs they
	// share are written once; the conditional PUT settles the race).
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(publishWorkers)
	n := 0
	for _, c := range res.Cases {
		if c.Run == "" || c.Seal == "" {
			continue // a case whose run failed is not sealed
		}
		if _, err := os.Stat(filepath.Join(runlog.RunsDir(o.DataDir), c.Run)); err != nil {
			continue // run in memory: its log is in the evaluation's record
		}
		n++
		g.Go(func() error {
			_, err := share.Publish(gctx, b, o.DataDir, c.Run)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if res.Seal != "" {
		if _, err := share.Publish(ctx, b, o.DataDir, res.Eval); err != nil {
			return err
		}
	}
	id, err := eval.ConfigID(&o)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeEvalJSON(&buf, res); err != nil {
		return err
	}
	if err := b.Put(ctx, evalResultKey(b, id), buf.Bytes()); err != nil {
		return err
	}
	if !global.quiet {
		fmt.Fprintf(w, "published %d case runs, evaluation %s and its result to %s\n", n, res.Eval, b.Loc)
	}
	return nil
}

// mergeSharedShards merges shards 1/n … n/n of the suite, each found in
// the shared store under the ConfigID its options give.
func mergeSharedShards(cmd *cobra.Command, f evalFlags, o eval.Options, b *bucket.Bucket, base *eval.Result) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	var rs []*eval.Result
	var missing []string
	for i := 1; i <= f.mergeShards; i++ {
		o.Shard = &eval.Shard{Index: i, Count: f.mergeShards}
		id, err := eval.ConfigID(&o)
		if err != nil {
			return exitf(exitFailed, "%v", err)
		}
		key := evalResultKey(b, id)
		data, err := b.Get(ctx, key, maxEvalResult)
		if err != nil {
			if isBucketNotFound(err) {
				missing = append(missing, o.Shard.String())
				continue
			}
			return exitf(exitFailed, "%v", err)
		}
		r, err := eval.ParseResult(key, data)
		if err != nil {
			return exitf(exitFailed, "%v", err)
		}
		if err := checkShardResult(&o, key, r); err != nil {
			return exitf(exitFailed, "%v", err)
		}
		rs = append(rs, r)
	}
	if len(missing) > 0 {
		return exitf(exitFailed, "shards %v of %d are not in %s; run each with: agentlab eval SUITE --shard i/%d --store URL (with the same options)", missing, f.mergeShards, b.Loc, f.mergeShards)
	}
	res, err := eval.Merge(rs)
	if err != nil {
		return exitf(exitUsage, "--merge-shards: %v", err)
	}
	if base != nil {
		res.Baseline = eval.Compare(base, res, f.baseline)
	}
	res.Exit = eval.ExitCode(res)
	return finishEval(cmd, f, res)
}

// checkShardResult makes sure a result read from the bucket is the shard
// it is filed under: the same suite and plan, that shard's index and
// count, and exactly that shard's cases (each once, none of another
// shard's), so that an edited or misplaced file cannot merge as complete.
func checkShardResult(o *eval.Options, key string, r *eval.Result) error {
	suiteHash, _, err := o.Suite.Hash()
	if err != nil {
		return err
	}
	switch {
	case r.Suite != suiteHash.String():
		return fmt.Errorf("%s: the result is of suite %s, not of this suite (%s)", key, r.Suite, suiteHash)
	case r.Plan != o.PlanHash.String():
		return fmt.Errorf("%s: the result ran plan %s, not this flow's plan %s", key, r.Plan, o.PlanHash)
	case r.Shard == nil || r.Shard.Index != o.Shard.Index || r.Shard.Count != o.Shard.Count:
		return fmt.Errorf("%s: the result is not of shard %s", key, o.Shard)
	}
	cases, _, _ := eval.Cases(o)
	want := map[eval.Key]bool{}
	for _, c := range cases {
		want[c.Key()] = true
	}
	seen := map[eval.Key]bool{}
	for _, c := range r.Cases {
		k := eval.Key{Question: c.Question, Variant: c.Variant, Repeat: c.Repeat}
		if !want[k] || seen[k] {
			return fmt.Errorf("%s: case %s/%s/%d does not belong to shard %s, or is there twice", key, k.Question, k.Variant, k.Repeat, o.Shard)
		}
		seen[k] = true
	}
	if len(seen)+r.Unrun != len(want) {
		return fmt.Errorf("%s: shard %s has %d cases, the result accounts for %d (%d run, %d unrun); run the shard again", key, o.Shard, len(want), len(seen)+r.Unrun, len(seen), r.Unrun)
	}
	return nil
}

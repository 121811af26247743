package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/eval"
	"github.com/agentlab/agentlab/eval/flowrun"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/sources"
)

func init() { register("eval", newEvalCmd) }

type evalFlags struct {
	variants []string
	provider string
	model    string
	parallel int
	timeout  time.Duration
	maxCost  float64
	junit    string
	format   string
	out      string
	baseline string
	resume   bool
	shard    string
	merge    []string
	estimate bool
	dataDir  string
	actor    string
	// store is the shared store the evaluation is published to;
	// mergeShards merges the n shards found there.
	store       string
	mergeShards int
	// runDirs gives every case a run directory of its own.
	runDirs bool
}

func newEvalCmd() *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval SUITE.eval.yml",
		Short: "Evaluate a flow against a question suite and compare with a baseline",
		Long: `Run every question of an evaluation suite through its flow under each variant
(provider, model, preset, judge, repeats) and score the answers: a question
passes when the values its expectation computes (SQL over the flow's sources,
or a metric of a pinned card) appear among the answer's numbers within the
precision they are written with. Prints accuracy and traceable accuracy with
95% Wilson intervals, issuance tiers, tokens/cost/time percentiles, A/B pairs
with an exact McNemar test, and transitions against --baseline.

Each case is a sealed run of the flow, kept in the evaluation's own record:
the evaluation is recorded and sealed under <data-dir>/runs/eval-…, with every
case's whole event log stored under its seal (--run-dirs gives each case a
run directory of its own instead), and --resume continues an interrupted one
without re-running finished cases. --shard i/n runs the questions whose id
hashes into part i; --merge combines shard results (by content address).

Exit codes: 0 no regressions, 1 regressions (with --baseline: a question
that passed, or is new, fails now; without: any question fails; also cases
left unrun), 2 usage, an invalid suite, configuration the runs would refuse
(AGENTLAB_SANDBOX, agentlab.toml; checked once, before any case), or an
estimate above --max-cost.

Examples:
  agentlab eval examples/traceable-weekly/traceable-weekly.eval.yml
  agentlab eval suite.eval.yml --baseline main.json --junit junit.xml --out new.json
  agentlab eval suite.eval.yml --shard 2/4 --out part2.json
  agentlab eval --merge part1.json --merge part2.json --baseline main.json`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error { return runEval(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.variants, "variant", nil, "run only this variant (repeatable)")
	fl.StringVar(&f.provider, "provider", "", "provider for every variant: mock|script:FILE|openai|anthropic")
	fl.StringVar(&f.model, "model", "", "model for every variant")
	fl.IntVar(&f.parallel, "parallel", 0, "cases run at once (default settings.parallel, else one per core for mock and script providers, 4 when a variant calls a remote model)")
	fl.DurationVar(&f.timeout, "timeout", 0, "time limit per question, e.g. 90s (default settings.timeout_s)")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "cost cap in USD: refuse an estimate above it, stop starting cases once spent")
	fl.StringVar(&f.junit, "junit", "", "write JUnit XML to FILE")
	fl.StringVar(&f.format, "format", "text", "output format: text|json")
	fl.StringVar(&f.out, "out", "", "write the result JSON to FILE (usable as a later --baseline)")
	fl.StringVar(&f.baseline, "baseline", "", "compare with this result file")
	fl.BoolVar(&f.runDirs, "run-dirs", false, "give every case a sealed run directory of its own (runs show, report, verify per case; slower)")
	fl.BoolVar(&f.resume, "resume", false, "continue the last unfinished evaluation of this suite and options")
	fl.StringVar(&f.shard, "shard", "", "run part i of n of the questions, as i/n")
	fl.StringArrayVar(&f.merge, "merge", nil, "merge these shard result files instead of running (repeatable)")
	fl.BoolVar(&f.estimate, "estimate", false, "print the cost estimate and stop")
	fl.StringVar(&f.dataDir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	fl.StringVar(&f.actor, "actor", "", "who starts the runs (default $USER)")
	fl.StringVar(&f.store, "store", "", "publish the sealed case runs, the record and the result to this "+storeHelp)
	fl.IntVar(&f.mergeShards, "merge-shards", 0, "merge the results of shards 1/n…n/n of this suite found in the shared store (--store) instead of running")
	return cmd
}

func runEval(cmd *cobra.Command, args []string, f evalFlags) error {
	if err := checkFormat(f.format, "text", "json"); err != nil {
		return err
	}
	if f.parallel < 0 || f.maxCost < 0 || f.timeout < 0 {
		return exitf(exitUsage, "--parallel, --max-cost and --timeout must not be negative")
	}
	var base *eval.Result
	if f.baseline != "" {
		b, err := eval.ReadResult(f.baseline)
		if err != nil {
			return exitf(exitUsage, "--baseline: %v", err)
		}
		base = b
	}
	if len(f.merge) > 0 {
		if len(args) > 0 {
			return exitf(exitUsage, "--merge combines result files and runs nothing; give it without a suite file")
		}
		return mergeEval(cmd, f, base)
	}
	if len(args) != 1 {
		return exitf(exitUsage, "name a suite file (*.eval.yml), or give --merge FILE...\nRun 'agentlab eval --help' for usage.")
	}
	if f.mergeShards < 0 || (f.mergeShards > 0 && f.shard != "") {
		return exitf(exitUsage, "--merge-shards N merges the N shards of the suite; give it without --shard, N at least 1")
	}
	var shard *eval.Shard
	if f.shard != "" {
		s, err := eval.ParseShard(f.shard)
		if err != nil {
			return exitf(exitUsage, "%v", err)
		}
		shard = s
	}
	path := args[0]
	s, p, h, l := suite.Load(path, eval.CompileFlow)
	if len(l) > 0 {
		_ = diag.WriteText(cmd.ErrOrStderr(), l.Sorted(), diag.TextOptions{Color: useColor(os.Stderr)})
	}
	if s == nil {
		return exitf(exitUsage, "%s cannot be evaluated; fix the errors above (agentlab lint %s)", path, path)
	}
	if f.provider != "" {
		if _, err := provider.New(f.provider, provider.Options{}); err != nil {
			return exitf(exitUsage, "--provider: %v", err)
		}
	}
	epoch, err := run.SourceDateEpoch()
	if err != nil {
		return exitf(exitUsage, "%v", err)
	}
	opts := eval.Options{
		Suite: s, Plan: p, PlanHash: h, Variants: f.variants, Shard: shard, Parallel: f.parallel,
		Timeout: f.timeout, MaxCostUSD: f.maxCost, DataDir: dataDir(f.dataDir), Resume: f.resume,
		Epoch: epoch, Baseline: base, BaselineFile: f.baseline,
		Config: map[string]any{"provider": f.provider, "model": f.model},
		// Cases run in memory hand back their logs; --run-dirs is part of
		// the configuration, so --resume never mixes the two.
		CaseLogs: !f.runDirs,
		// Durable per batch of cases, not per file a case's run writes
		// (docs/evals.md, "Durability").
		GroupCommit: true,
	}
	if f.provider != "" {
		// A command-line script enters the configuration as the runs see
		// it, relative to the flow, so that resume and shard ids do not
		// depend on where the checkout is.
		opts.Config["provider"] = flowrun.ScriptRelativeToFlow(f.provider, "", suite.FlowPath(s))
	}
	if f.runDirs {
		opts.Config["run_dirs"] = true
	}
	shared, err := openSharedStore(context.Background(), f.store, storeDir(path))
	if err != nil {
		return err
	}
	if f.mergeShards > 0 {
		if shared == nil {
			return exitf(exitUsage, "--merge-shards finds the shards in a shared store: give --store s3://BUCKET/PREFIX (or set %s); to merge result files, use --merge FILE", envStore)
		}
		return mergeSharedShards(cmd, f, opts, shared, base)
	}
	_, _, vs := eval.Cases(&opts)
	if len(vs) == 0 && len(f.variants) > 0 {
		return exitf(exitUsage, "the suite has no variant %s", strings.Join(f.variants, ", "))
	}
	for _, v := range f.variants {
		if _, ok := s.Variant(v); !ok {
			return exitf(exitUsage, "the suite has no variant %q", v)
		}
	}
	if f.provider != "" {
		for i := range vs {
			vs[i].Provider = f.provider
		}
	}
	warnScripts(cmd, p, vs, f.provider, filepath.Dir(path))
	// A script file every case of a variant would fail to read is refused
	// once, before the evaluation is recorded.
	for _, file := range scriptFiles(vs, f.provider, filepath.Dir(path)) {
		if _, err := provider.New("script:"+file, provider.Options{}); err != nil {
			return exitf(exitUsage, "%v", err)
		}
	}
	registerVariantSecrets(s, f, filepath.Dir(suite.FlowPath(s)))
	run.RegisterPlanSecrets(p) // the flow's custom tools' secrets, before the suite is checked for them
	cases, qs, _ := eval.Cases(&opts)
	est := eval.EstimateCost(p, vs, len(qs))
	if !global.quiet || f.estimate {
		w := cmd.ErrOrStderr()
		if f.estimate {
			w = cmd.OutOrStdout()
		}
		fmt.Fprintf(w, "estimate: %d question(s) × %d variant(s) = %d case(s), ~%d tokens, ~$%.4f", len(qs), len(vs), len(cases), est.Tokens, est.CostUSD)
		if len(est.Unpriced) > 0 {
			fmt.Fprintf(w, " (cost unknown for %s: give the variant a price:)", strings.Join(est.Unpriced, ", "))
		}
		fmt.Fprintln(w)
	}
	if f.estimate {
		return nil
	}
	if opts.Parallel == 0 && s.Settings.Parallel == 0 {
		opts.Parallel = eval.DefaultParallel(vs, "")
	}
	// A setting of this machine, or a mistake in agentlab.toml, that every
	// case would trip over is refused once, before the evaluation is
	// recorded, not reported per case; the configuration's diagnostics are
	// printed as run prints them.
	if err := run.CheckMachine(); err != nil {
		return exitf(exitUsage, "%v", err)
	}
	if err := run.CheckConfig(dataDir(f.dataDir), suite.FlowPath(s), p); err != nil {
		return runError(cmd, f.format, err)
	}
	_, sj, err := s.Hash() // the suite as the evaluation stores it
	if err != nil {
		return exitf(exitFailed, "%v", err)
	}
	if err := run.CheckSuiteHoldsNoSecret(sj); err != nil {
		return exitf(exitUsage, "%s: %v", path, err)
	}
	opts.SuiteJSON = sj
	maxCost := f.maxCost
	if maxCost == 0 {
		maxCost = s.Settings.MaxCostUSD
	}
	if maxCost > 0 && est.CostUSD > maxCost {
		return exitf(exitUsage, "the estimated cost $%.4f is above the cap $%.4f; raise --max-cost (or settings.max_cost_usd), or run fewer variants or repeats", est.CostUSD, maxCost)
	}

	// One build of each data source serves the oracle and every case.
	srcCache := sources.NewCache()
	defer srcCache.Close()
	// The expectations get a build of their own, indexed when they are
	// many (one query per question): each then looks its rows up instead
	// of scanning the table.
	oracleCache := srcCache
	if n := sqlExpectations(s, qs); n >= eval.IndexedOracleQuestions {
		oracleCache = sources.NewIndexedCache(n)
		defer oracleCache.Close()
	}
	oracle, err := eval.NewCachedSourceOracle(context.Background(), p, filepath.Dir(suite.FlowPath(s)), oracleCache)
	if err != nil {
		return runError(cmd, f.format, run.SourceLoadError(err, suite.FlowPath(s), filepath.Dir(suite.FlowPath(s))))
	}
	defer oracle.Close()
	opts.Oracle, opts.Sources = oracle, oracle.SourceHashes()
	actor := f.actor
	if actor == "" {
		actor = os.Getenv("USER")
	}
	fr := &flowrun.Runner{Plan: p, PlanHash: h, Flow: suite.FlowPath(s), SuiteDir: filepath.Dir(path),
		DataDir: opts.DataDir, Answer: s.Answer, Actor: actor, Epoch: epoch, Provider: f.provider, Model: f.model,
		Sources: srcCache, RunDirs: f.runDirs, Workers: opts.Parallel}
	if fr.Workers <= 0 {
		fr.Workers = max(s.Settings.Parallel, 1)
	}
	defer fr.Close()
	if err := fr.Prepare(vs); err != nil {
		return exitf(exitUsage, "%v", err)
	}
	opts.Runner = fr
	opts.Judge = judgeFor(f, vs)
	quiet := global.quiet
	errw := cmd.ErrOrStderr()
	opts.Started = func(id string, resumed bool) {
		if !quiet {
			verb := "started"
			if resumed {
				verb = "resumed"
			}
			fmt.Fprintf(errw, "eval %s %s\n", id, verb)
		}
	}
	var prog *evalProgress
	if !quiet {
		prog = newEvalProgress(errw, global.verbose)
		opts.Pending = prog.begin
		opts.Progress = prog.finished
		defer prog.end()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The suite's JSON goes with this call only: opts lives on after it.
	withSuite := opts
	withSuite.SuiteJSON, opts.SuiteJSON = opts.SuiteJSON, nil
	res, err := eval.Evaluate(ctx, withSuite)
	if prog != nil {
		prog.end() // the status line is done before the report is printed
	}
	if err != nil {
		var le *runlog.LockedError
		switch {
		case errors.Is(err, eval.ErrResumeNothing):
			return exitf(exitUsage, "%v; start one without --resume", err)
		case errors.Is(err, eval.ErrRecordDamaged), errors.Is(err, eval.ErrDataChanged):
			return exitf(exitUsage, "eval: %v", err)
		case errors.As(err, &le), errors.Is(err, runlog.ErrExists):
			return exitf(exitUsage, "%v", err)
		}
		return exitf(exitFailed, "eval: %v", err)
	}
	if shared != nil {
		if err := publishEval(ctx, shared, opts, res, cmd.ErrOrStderr()); err != nil {
			return shareError(err)
		}
	}
	return finishEval(cmd, f, res)
}

// judgeFor builds the key-point judge from the first judging variant's
// provider (or --provider).
func judgeFor(f evalFlags, vs []suite.Variant) eval.Judge {
	for _, v := range vs {
		if !v.Judge {
			continue
		}
		spec := v.Provider
		if f.provider != "" {
			spec = f.provider
		}
		if strings.HasPrefix(spec, "script:") {
			spec = "mock" // a script answers the flow's nodes, not a judge
		}
		model := v.Model
		if f.model != "" {
			model = f.model
		}
		p, err := provider.New(spec, provider.Options{Seed: v.Seed, Model: model})
		if err != nil {
			return nil
		}
		return eval.ProviderJudge{Provider: p, Model: model}
	}
	return nil
}

// mergeEval merges shard result files.
func mergeEval(cmd *cobra.Command, f evalFlags, base *eval.Result) error {
	var rs []*eval.Result
	for _, m := range f.merge {
		r, err := eval.ReadResult(m)
		if err != nil {
			return exitf(exitUsage, "--merge: %v", err)
		}
		rs = append(rs, r)
	}
	res, err := eval.Merge(rs)
	if err != nil {
		return exitf(exitUsage, "--merge: %v", err)
	}
	if base != nil {
		res.Baseline = eval.Compare(base, res, f.baseline)
	}
	res.Exit = eval.ExitCode(res)
	return finishEval(cmd, f, res)
}

// finishEval writes the outputs and returns the exit code.
func finishEval(cmd *cobra.Command, f evalFlags, res *eval.Result) error {
	if f.out != "" {
		if err := writeFileWith(f.out, func(w io.Writer) error { return writeEvalJSON(w, res) }); err != nil {
			return exitf(exitFailed, "--out: %v", err)
		}
	}
	if f.junit != "" {
		if err := writeFileWith(f.junit, func(w io.Writer) error { return eval.WriteJUnit(w, res) }); err != nil {
			return exitf(exitFailed, "--junit: %v", err)
		}
	}
	if f.format == "json" {
		if err := writeEvalJSON(cmd.OutOrStdout(), res); err != nil {
			return exitf(exitFailed, "%v", err)
		}
	} else {
		eval.WriteText(cmd.OutOrStdout(), res)
	}
	return exitCode(res.Exit)
}

// writeEvalJSON writes the result as the JSON shape pipelines read.
func writeEvalJSON(w io.Writer, res *eval.Result) error { return eval.WriteJSON(w, res) }

// writeFileWith renders a file in memory and writes it atomically, so a
// reader never sees half a result.
func writeFileWith(path string, fill func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return fsutil.WriteFileAtomic(path, b.Bytes(), 0o644)
}

// sqlExpectations counts the questions among ids whose expectation is an
// SQL query.
func sqlExpectations(s *suite.Suite, ids []string) int {
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	n := 0
	for i := range s.Questions {
		if q := &s.Questions[i]; keep[q.ID] && q.Expect.Kind == suite.KindSQL {
			n++
		}
	}
	return n
}

// registerVariantSecrets makes the provider of every variant of the suite,
// selected or not, before any case runs: each registers its secrets (an
// API key) for redaction, so every case is redacted alike whichever
// variants this evaluation runs and in whatever order (a key another
// variant's model echoes is never sealed in clear in one evaluation and
// redacted in the next). Errors are for the runs to report.
func registerVariantSecrets(s *suite.Suite, f evalFlags, flowDir string) {
	for _, v := range s.Variants {
		spec, model := v.Provider, v.Model
		if f.provider != "" {
			spec = f.provider
		}
		if f.model != "" {
			model = f.model
		}
		if strings.HasPrefix(spec, "script:") {
			continue // a script file holds no key
		}
		provider.New(spec, provider.Options{Model: model, BaseDir: flowDir})
	}
}

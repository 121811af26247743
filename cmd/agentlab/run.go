package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/issuance"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
)

func init() { register("run", newRunCmd) }

type runFlags struct {
	inputs    []string
	inputFile string
	provider  string
	model     string
	seed      int64
	formal    bool
	out       string
	dataDir   string
	actor     string
	parallel  int
	format    string
	yes       bool
	// inline asks human nodes' questions on the terminal (--interactive).
	inline bool
	// sign is the ed25519 private key file the seal is signed with.
	sign string
	// store is the shared store the sealed run is published to.
	store string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run FLOW|PLAN",
		Short: "Execute a flow or a compiled plan and seal the run",
		Long: `Execute a flow file (compiled on the fly; the run is exploratory) or a compiled
plan file. Nodes run in parallel where the graph allows (--parallel, default
the plan's settings.parallel). Every node event is appended to the run's
hash-chained log under <data-dir>/runs/<run-id>/; a run that succeeds is
sealed, and its outputs are written to <out>/outputs.json, with report.html
(every number clickable back to its source) and bundle.html (verifiable
offline with agentlab verify). --sign KEY also signs the seal (ed25519).

An output node with an issuance contract gives the run its tier (formal,
degraded or withheld; see docs/evidence.md), printed as "tier …" followed,
when it is not formal, by the reasons (what was untraced, missing or could
not be checked); <out>/issuance.json records the tier and the reasons.

The mock model is the default provider: no key or network is needed, and
with the same plan, inputs and --seed it answers the same way every time.
With SOURCE_DATE_EPOCH set the clock is fixed and the run id is derived from
plan, inputs, seed and provider, so the seal is byte-identical anywhere.

--formal accepts only a compiled plan at tier published or governed; its
hash is recorded as the run's plan. A report node that does not set
on_violation fails on a citation violation at those tiers, and keeps the
report with the violations marked (a degraded output) in an exploratory
flow.

Progress goes to stderr (a live view on a terminal, one line per event
otherwise); results go to stdout. --format json ends stdout with one JSON
object: {"run","status","kind","tier","plan","seal","outputs","report",
"bundle","waiting","tier_reasons","warnings"}. At the end of every run,
stderr lists in one block what a person must know although the run went
on: refused tool calls (with the permission rule to add), values a model
cited wrongly, models without a price, code run without isolation, and
provider retries; "warnings" carries the same as {code, node, message}.

Configuration the run reads (agentlab.toml tables, permissions.json, the
data sources, AGENTLAB_SANDBOX, the endpoints of a retrieve node's
embed_model/rerank_model) is checked before the run is created: a
mistake is printed as diagnostics (JSON with --format json) and no run is
left behind.

Exit codes: 0 succeeded, 1 failed or interrupted, 2 usage, bad configuration
or a flow that does not compile, 3 waiting for a person, 4 withheld by the
issuance contract.

Examples:
  agentlab run examples/minimal-qa/flow.yml --input question="What is BLAKE3?"
  agentlab run flow.yml --input-file inputs.json --seed 7 --format json
  agentlab compile flow.yml -o flow.plan.json && agentlab run flow.plan.json --formal`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.inputs, "input", nil, "an input as NAME=VALUE (repeatable; overrides --input-file)")
	fl.StringVar(&f.inputFile, "input-file", "", "a JSON object of inputs")
	fl.StringVar(&f.provider, "provider", "mock", "model provider: mock|script:FILE|openai|anthropic")
	fl.StringVar(&f.model, "model", "", "model name for nodes that name none")
	fl.Int64Var(&f.seed, "seed", 0, "seed of the mock provider")
	fl.BoolVar(&f.formal, "formal", false, "a formal run: only a compiled plan at tier published or governed")
	fl.StringVar(&f.out, "out", "", "output directory (default <data-dir>/out/<run-id>)")
	fl.StringVar(&f.dataDir, "data-dir", "", "data directory (default $AGENTLAB_DATA_DIR or ./.agentlab)")
	fl.StringVar(&f.actor, "actor", "", "who starts the run (default $USER)")
	fl.IntVar(&f.parallel, "parallel", 0, "nodes that may work at once (default the plan's settings.parallel)")
	fl.StringVar(&f.format, "format", "text", "output format: text|json")
	fl.BoolVar(&f.yes, "yes", false, "never prompt; allow tool calls that would be asked (never approves a human node)")
	fl.BoolVar(&f.inline, "interactive", false, "on a terminal, ask human nodes' questions inline instead of pausing")
	fl.StringVar(&f.sign, "sign", "", "sign the seal with this ed25519 private key file (agentlab keys generate)")
	fl.StringVar(&f.store, "store", "", "publish the sealed run to this "+storeHelp)
	return cmd
}

func runRun(cmd *cobra.Command, path string, f runFlags) error {
	if err := checkFormat(f.format, "text", "json"); err != nil {
		return err
	}
	if f.parallel < 0 {
		return exitf(exitUsage, "--parallel must be at least 1")
	}
	lp, err := loadPlan(cmd, path)
	if err != nil {
		return err
	}
	p, hash, isPlan := lp.plan, lp.hash, lp.isPlan
	kind := run.KindExploratory
	if f.formal {
		if !isPlan {
			return exitf(exitUsage, "--formal runs a compiled plan, not a flow file; with tier: published (or governed) in the flow, compile it first: agentlab compile %s -o %s", shellQuote(path), shellQuote(planName(path)))
		}
		if p.Tier != plan.TierPublished && p.Tier != plan.TierGoverned {
			return exitf(exitUsage, "--formal needs a plan at tier published or governed, and %s is %s; set tier: published in the flow and compile it again: agentlab compile FLOW -o %s", path, p.Tier, path)
		}
		if old := compile.OutdatedCards(filepath.Dir(path), p); len(old) > 0 {
			return exitf(exitUsage, "--formal refuses a plan whose metric cards have moved on: %s; review the change, pin the new version (or declare on_card_upgrade) and compile again: agentlab compile FLOW -o %s", strings.Join(old, "; "), path)
		}
		kind = run.KindFormal
	}
	inputs, err := readInputs(f.inputFile, f.inputs)
	if err != nil {
		return err
	}
	key, err := signingKey(f.sign)
	if err != nil {
		return err
	}
	epoch, err := run.SourceDateEpoch()
	if err != nil {
		return exitf(exitUsage, "%v", err)
	}
	actor := f.actor
	if actor == "" {
		actor = os.Getenv("USER")
	}
	origin := "cli"
	if os.Getenv("CI") == "true" || os.Getenv("CI") == "1" {
		origin = "ci"
	}
	if len(provider.EnvVars(f.provider)) > 0 { // a remote provider reads the config files
		if w := provider.ConfigWarnings(lp.flowDir); len(w) > 0 {
			_ = diag.WriteText(cmd.ErrOrStderr(), w.Sorted(), diag.TextOptions{Color: useColor(os.Stderr)})
		}
	}
	warnUnisolated(cmd.ErrOrStderr(), p)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	shared, err := openSharedStore(ctx, f.store, storeDir(path))
	if err != nil {
		return err
	}
	prog := newProgress(global.quiet)
	out, err := run.Start(ctx, run.Options{
		DataDir: dataDir(f.dataDir), Plan: p, PlanHash: hash, Source: path, BaseDir: lp.flowDir, Kind: kind,
		Inputs: inputs, Provider: f.provider, Model: f.model, Seed: f.seed, Actor: actor,
		Origin: origin, Parallel: f.parallel, OutDir: f.out, Epoch: epoch, Observe: prog.observe,
		Interaction: interaction(f.yes, f.inline, prog), Warn: printWarnings(cmd),
		Started: func(id string) {
			if !global.quiet {
				fmt.Fprintf(os.Stderr, "run %s started (plan %s)\n", id, hash.String()[:15])
			}
		},
	})
	prog.close()
	if err != nil {
		return runError(cmd, f.format, err)
	}
	exportEvidence(dataDir(f.dataDir), out, key)
	rerr := report(cmd.OutOrStdout(), f.format, p.Tier, out)
	if shared != nil {
		if out.Seal == "" {
			fmt.Fprintf(os.Stderr, "run %s is not sealed; nothing was published to %s\n", out.RunID, shared.Loc)
		} else if _, err := publishTo(ctx, shared, dataDir(f.dataDir), out.RunID, os.Stderr); err != nil {
			return shareError(err)
		}
	}
	return rerr
}

// loadedPlan is a plan ready to run and where it came from.
type loadedPlan struct {
	plan *plan.Plan
	hash hashid.ID
	// isPlan is true for a compiled plan file, false for a flow.
	isPlan bool
	// flowDir is the flow's directory: where the plan file says it is
	// (plan.FlowDirKey), else the directory of the file.
	flowDir string
}

// loadPlan reads a compiled plan (.json, or a file starting with '{') or
// compiles a flow on the fly, printing its diagnostics.
func loadPlan(cmd *cobra.Command, path string) (loadedPlan, error) {
	b, err := fsutil.FlowCap.ReadFile(path)
	if err != nil {
		return loadedPlan{}, exitf(exitUsage, "cannot read %s: %v", path, err)
	}
	if plan.IsPlan(b) {
		p, h, list := plan.DecodeFile(path, b)
		if list.HasErrors() {
			_ = diag.WriteText(cmd.ErrOrStderr(), list.Sorted(), diag.TextOptions{Color: useColor(os.Stderr)})
			return loadedPlan{}, exitf(exitUsage, "%s is not a plan that can run; compile the flow again: agentlab compile FLOW -o %s", path, path)
		}
		dir, err := plan.FlowDir(path, b)
		if err != nil {
			return loadedPlan{}, exitf(exitUsage, "%s: %v", path, err)
		}
		return loadedPlan{plan: p, hash: h, isPlan: true, flowDir: dir}, nil
	}
	p, list := compile.CompileFile(path, compile.Options{})
	if len(list) > 0 {
		_ = diag.WriteText(cmd.ErrOrStderr(), list.Sorted(), diag.TextOptions{Color: useColor(os.Stderr)})
	}
	if p == nil || list.HasErrors() {
		return loadedPlan{}, exitf(exitUsage, "%s has errors and cannot run; fix them (agentlab lint %s) and try again", path, path)
	}
	h, err := p.Hash()
	if err != nil {
		return loadedPlan{}, exitf(exitFailed, "plan hash: %v", err)
	}
	return loadedPlan{plan: p, hash: h, flowDir: filepath.Dir(path)}, nil
}

func planName(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".plan.json"
}

// readInputs merges --input-file and --input NAME=VALUE (which wins).
func readInputs(file string, pairs []string) (map[string]any, error) {
	in := map[string]any{}
	if file != "" {
		if err := readJSONObjectFile("--input-file", file, &in); err != nil {
			if _, ok := err.(*exitError); ok {
				return nil, err
			}
			return nil, exitf(exitUsage, "--input-file %s must hold one JSON object of inputs: %v", file, err)
		}
	}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, exitf(exitUsage, "--input %q must be NAME=VALUE", kv)
		}
		in[strings.TrimSpace(k)] = v
	}
	return in, nil
}

// runError maps a run/resume error to an exit code. An error that carries
// diagnostics (agentlab.toml tables, data sources) is printed through the
// diagnostics printer, as JSON on stdout with --format json.
func runError(cmd *cobra.Command, format string, err error) error {
	if l, ok := diagnosticsOf(err); ok && len(l) > 0 {
		code := exitFailed
		if ue := (*run.UsageError)(nil); errors.As(err, &ue) {
			code = exitUsage
		}
		return writeDiagnostics(cmd.OutOrStdout(), cmd.ErrOrStderr(), format, l, code,
			"refused before any node ran; fix the problems above and try again")
	}
	var ue *run.UsageError
	var le *runlog.LockedError
	switch {
	case errors.As(err, &ue), errors.As(err, &le), errors.Is(err, runlog.ErrExists), errors.Is(err, runlog.ErrNoRun), errors.Is(err, runlog.ErrBadID):
		return exitf(exitUsage, "%v", err)
	}
	return exitf(exitFailed, "%v", err)
}

// runResult is the --format json result of run and resume (docs/cli.md).
type runResult struct {
	Run     string           `json:"run"`
	Status  string           `json:"status"`
	Kind    string           `json:"kind"`
	Tier    *string          `json:"tier"`
	Plan    string           `json:"plan"`
	Seal    *string          `json:"seal"`
	Outputs map[string]any   `json:"outputs"`
	Report  *string          `json:"report"`
	Bundle  *string          `json:"bundle"`
	Waiting []runlog.Waiting `json:"waiting"`
	// TierReasons says why the tier is not formal (docs/evidence.md: a degraded
	// run declares what it could not trace or check); [] otherwise.
	TierReasons []string `json:"tier_reasons"`
	// Warnings are what a person must know although the run went on
	// (run.Warning); [] when there is nothing to say.
	Warnings []run.Warning `json:"warnings"`
}

// report prints the summary (stderr) and the result (stdout) and returns
// the exit code for the run's status.
func report(stdout io.Writer, format, _ string, o *run.Outcome) error {
	if !global.quiet && len(o.Nodes) > 0 {
		summaryTable(os.Stderr, o.Nodes)
	}
	if o.Repaired != "" {
		fmt.Fprintln(os.Stderr, "repaired: "+o.Repaired)
	}
	if !global.quiet {
		printRunWarnings(os.Stderr, o.Warnings)
	}
	if format == "json" {
		res := runResult{Run: o.RunID, Status: o.Status, Kind: o.Kind, Plan: o.Plan, Outputs: o.Outputs, Waiting: []runlog.Waiting{}, TierReasons: []string{}, Warnings: []run.Warning{}}
		if len(o.Warnings) > 0 {
			res.Warnings = o.Warnings
		}
		if len(o.TierReasons) > 0 {
			res.TierReasons = o.TierReasons
		}
		if len(o.Waiting) > 0 {
			res.Waiting = o.Waiting
		}
		if res.Outputs == nil {
			res.Outputs = map[string]any{}
		}
		if o.Seal != "" {
			s := o.Seal
			res.Seal = &s
		}
		res.Tier, res.Report, res.Bundle = optional(o.Tier), optional(o.Report), optional(o.Bundle)
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		what := o.Status
		if o.Finished {
			what += " (already finished; nothing was changed)"
		}
		fmt.Fprintf(stdout, "run %s %s\n", o.RunID, what)
		if o.Seal != "" {
			fmt.Fprintf(stdout, "seal %s\n", o.Seal)
		}
		if o.Tier != "" {
			fmt.Fprintf(stdout, "tier %s\n", tierLine(o.Tier, o.TierReasons))
		}
		if o.Report != "" {
			fmt.Fprintf(stdout, "report %s\nbundle %s\n", o.Report, o.Bundle)
		}
		keys := make([]string, 0, len(o.Outputs))
		for k := range o.Outputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(stdout, "%s: %s\n", k, outputText(o.Outputs[k]))
		}
		printWaiting(stdout, o)
	}
	switch o.Status {
	case engine.StatusSucceeded:
		if o.Tier == issuance.TierWithheld {
			return exitf(exitWithheld, "the run finished, but the issuance contract withheld its output; see the contract of the output node in `agentlab runs events %s`", o.RunID)
		}
		return nil
	case runlog.StatusWaiting:
		return exitCode(exitWaiting)
	}
	msg := o.Error
	if msg == "" {
		msg = "the run " + o.Status
	}
	if o.Status != engine.StatusSucceeded && !o.Finished && !o.Rejected {
		msg += "\ncontinue it with: " + run.ResumeCommand(o.DataDir, o.RunID)
	}
	return exitf(exitFailed, "%s", msg)
}

// tierLine is the tier as the text output prints it: with the reasons it
// is not formal, so that a degraded run declares them where it is read.
func tierLine(tier string, reasons []string) string {
	if len(reasons) == 0 {
		return tier
	}
	return tier + ": " + strings.Join(reasons, "; ")
}

func outputText(v any) string {
	if s, ok := v.(string); ok {
		if strings.Contains(s, "\n") {
			return "|\n  " + strings.ReplaceAll(s, "\n", "\n  ")
		}
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// printRunWarnings writes the end-of-run block of what a person must know
// (refused tools, wrongly cited values, unpriced models, unisolated code,
// provider retries), last on stderr, where a CI log is read.
func printRunWarnings(w io.Writer, ws []run.Warning) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintf(w, "warnings (%d):\n", len(ws))
	for _, x := range ws {
		where := ""
		if x.Node != "" {
			where = " " + x.Node + ":"
		}
		fmt.Fprintf(w, "  %s%s %s\n", x.Code, where, x.Message)
	}
}

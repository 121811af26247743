// Package run starts and resumes runs: it ties the engine (package
// run/engine) to the run directory (run/runlog), the artifact store, the
// model providers and the clock, and writes the run-level events and the
// seal. The CLI commands run, resume and runs call into it.
//
// Where it fits: docs/architecture.md#running.
package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/redact"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/sources"
	"github.com/agentlab/agentlab/run/store"
)

// Kinds of run (docs/running.md).
const (
	KindExploratory = "exploratory"
	KindFormal      = "formal"
)

// EvRunFailed ends a run that failed. It is not run.finished on purpose:
// the seal covers the events up to the first run.finished, and a failed
// run may still be resumed to success, whose run.finished must be the one
// that is sealed. A run that stays failed is therefore not sealed.
const EvRunFailed = "run.failed"

// EvRunResumed marks where a resumed attempt starts appending.
const EvRunResumed = "run.resumed"

// UsageError is a problem with what the caller asked for (bad inputs, an
// unknown provider, an unsupported node type): nothing was run.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// Options describe a new run.
type Options struct {
	DataDir  string
	Plan     *plan.Plan
	PlanHash hashid.ID
	// Source is the flow or plan file the run comes from; its directory
	// resolves script:FILE and the flow's data sources unless BaseDir is
	// set.
	Source string
	// BaseDir is the flow's directory when it is not Source's: a plan file
	// written away from its flow records it (plan.FlowDirKey).
	BaseDir  string
	Kind     string // exploratory | formal
	Inputs   map[string]any
	Provider string // mock (default), script:FILE, openai, anthropic
	Model    string
	Seed     int64
	Actor    string
	Origin   string
	// Question is the eval question the run answers (its id), for a script
	// file's per-question responses; "" outside an eval.
	Question string
	Parallel int
	// OutDir receives outputs.json; "" means <data-dir>/out/<run-id>.
	OutDir string
	// NoExport leaves out the exported copies of the outputs (the out
	// directory with outputs.json and issuance.json): an evaluation's case
	// runs are read through their sealed record only, and thousands of
	// out directories nobody opens cost a directory and two files each.
	// The outputs stay in run.json and the events, under the seal.
	NoExport bool
	// Epoch, when set (SOURCE_DATE_EPOCH), fixes the clock and derives the
	// run id from the plan, inputs, seed and provider.
	Epoch *time.Time
	// Case, when set, names the evaluation case the run answers
	// (question, variant, repeat). It enters the derived run id, so that
	// two cases with the same inputs never derive the same id and an
	// evaluation's seal is the same on every machine. Plain runs leave it
	// empty and keep the ids they always had.
	Case    string
	Observe func(engine.Update)
	// Started is called once the run id is known, before any node runs.
	Started func(runID string)
	// Interaction is how the run may involve the person at the terminal.
	Interaction Interaction
	// Warn, when set, receives the warnings found before any node runs
	// (W-SCRIPT-NODE for a script provider); they never stop the run.
	Warn func(diag.List)
	// Replace, with Epoch, removes a run left under the derived id (by an
	// evaluation attempt that was interrupted before it recorded the run)
	// and makes it again under the same id, instead of failing with
	// runlog.ErrExists. Under a fixed clock the new run is the same as the
	// one it replaces would have been, so a resumed evaluation seals as an
	// uninterrupted one. A run still held by a live process is never
	// replaced.
	Replace bool
	// SourceCache, when set, shares the databases built from the flow's
	// data files between the runs that use it (an evaluation's cases):
	// each source is built once per version of its file. nil builds them
	// for this run alone.
	SourceCache *sources.Cache
}

// Outcome is how a run (or a resume) ended.
type Outcome struct {
	RunID    string
	Status   string // succeeded | failed | cancelled
	Kind     string
	Plan     string
	Seal     string // "" unless the run finished and was sealed
	Outputs  map[string]any
	Error    string
	OutDir   string
	Nodes    []engine.NodeSummary
	Steps    int
	Resumed  bool
	Finished bool // resume found the run already finished and changed nothing
	Repaired string
	// DataDir is the data directory the run is in, as it was given: the
	// commands printed for the run name it (ResumeCommand).
	DataDir string
	// Waiting lists the human nodes a waiting run paused at, each with the
	// command that decides it.
	Waiting []runlog.Waiting
	// Rejected is set when the run was cancelled because a human node was
	// rejected and had no reject edge: resuming it changes nothing.
	Rejected bool
	// Tier is the issuance verdict of the contracted outputs
	// (formal|degraded|withheld), "" when no output has a contract.
	Tier string
	// TierReasons says why Tier is not formal, one sentence each, and
	// that code ran without isolation when it did (nil when neither, or
	// there is no contract); issuance.json records both.
	TierReasons []string
	// Warnings are what a person must know about the run although it did
	// not stop it (warnings.go); nil when there is nothing to say.
	Warnings []Warning
	// Report and Bundle are the paths of report.html and bundle.html once
	// they are written (by the caller, after the seal).
	Report string
	Bundle string
}

// checkpoint is checkpoint.json: everything resume needs besides the
// events (docs/formats.md). The plan and the inputs are stored as artifacts.
type checkpoint struct {
	Format   int    `json:"format"`
	Plan     string `json:"plan"`
	PlanBlob string `json:"plan_artifact"`
	Inputs   string `json:"inputs_artifact"`
	Kind     string `json:"kind"`
	Source   string `json:"source,omitempty"`
	BaseDir  string `json:"base_dir,omitempty"`
	Provider string `json:"provider"`
	Model    string `json:"model,omitempty"`
	Seed     int64  `json:"seed"`
	Parallel int    `json:"parallel,omitempty"`
	Actor    string `json:"actor,omitempty"`
	OutDir   string `json:"out_dir"`
}

// SourceDateEpoch reads SOURCE_DATE_EPOCH (seconds since 1970, UTC); nil
// when it is unset.
func SourceDateEpoch() (*time.Time, error) {
	s := strings.TrimSpace(os.Getenv("SOURCE_DATE_EPOCH"))
	if s == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return nil, usage("SOURCE_DATE_EPOCH=%q is not a whole number of seconds since 1970; unset it or set it to e.g. 1700000000", s)
	}
	t := time.Unix(n, 0).UTC()
	return &t, nil
}

// RunID returns the id of a new run: derived from what determines the run
// when the clock is fixed, else the UTC start time plus a random suffix.
func RunID(epoch *time.Time, planHash hashid.ID, inputs map[string]any, seed int64, prov, model, kind string) (string, error) {
	return runID(epoch, planHash, inputs, seed, prov, model, kind, "")
}

// randomIDTries bounds how often a run with a random id draws again when
// the id is taken: the suffix has 24 bits, so thousands of runs started in
// one second (an evaluation) can meet an id already in use.
const randomIDTries = 8

// idRand and idClock draw random run ids; tests replace them to force a
// collision.
var (
	idRand  = defaultIDRand
	idClock = defaultIDClock
)

var (
	defaultIDRand  = rand.Read
	defaultIDClock = time.Now
)

func runID(epoch *time.Time, planHash hashid.ID, inputs map[string]any, seed int64, prov, model, kind, evalCase string) (string, error) {
	if epoch == nil {
		var b [3]byte
		if _, err := idRand(b[:]); err != nil {
			return "", err
		}
		return idClock().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:]), nil
	}
	in, err := canon.Marshal(inputs)
	if err != nil {
		return "", err
	}
	return derivedRunID(planHash, in, seed, prov, model, kind, evalCase), nil
}

// derivedRunID is the id of a run under a fixed clock: 16 hex digits of
// the hash of what determines the run, the canonical JSON object of its
// case, inputs (given as their canonical JSON), kind, model, plan,
// provider and seed, written here in key order.
func derivedRunID(planHash hashid.ID, inputs []byte, seed int64, prov, model, kind, evalCase string) string {
	b := make([]byte, 0, 192+len(inputs)+len(evalCase)+len(prov)+len(model))
	b = append(b, '{')
	if evalCase != "" {
		b = append(canon.AppendString(append(b, `"case":`...), evalCase), ',')
	}
	b = append(append(b, `"inputs":`...), inputs...)
	b = canon.AppendString(append(b, `,"kind":`...), kind)
	b = canon.AppendString(append(b, `,"model":`...), model)
	b = canon.AppendString(append(b, `,"plan":`...), planHash.String())
	b = canon.AppendString(append(b, `,"provider":`...), prov)
	b = append(canon.AppendInt(append(b, `,"seed":`...), seed), '}')
	id := hashid.Sum(b)
	return hex.EncodeToString(id[:8]) // the first 16 hex digits, in a string of their own
}

// Start creates a run, executes it and seals it when it succeeds.
func Start(ctx context.Context, o Options) (*Outcome, error) {
	if err := withDefaults(o.Plan, &o.Kind, &o.Provider); err != nil {
		return nil, err
	}
	inputs, err := engine.PrepareInputs(o.Plan.Inputs, o.Inputs)
	if err != nil {
		return nil, &UsageError{err}
	}
	baseDir := baseDirOf(o.Source)
	if o.BaseDir != "" {
		baseDir = absDir(o.BaseDir)
	}
	prov, err := checkBeforeRun(o.Plan, o.Provider, provider.Options{Seed: o.Seed, Model: o.Model, BaseDir: baseDir, Question: o.Question}, o.Warn)
	if err != nil {
		return nil, err
	}
	pre, err := prepare(ctx, dataDirFor(o.DataDir), checkpoint{Source: o.Source, BaseDir: baseDir, Actor: o.Actor}, o.Plan, o.Interaction, o.SourceCache)
	if err != nil {
		return nil, err
	}
	defer pre.close()
	if len(pre.warnings) > 0 && o.Warn != nil {
		o.Warn(pre.warnings)
	}
	// The plan and inputs are stored, and the checkpoint and record that
	// name them written, before the run directory appears (CreateWith):
	// a run killed at any instant either does not exist or can be resumed
	// from its start.
	st, planBlob, err := storePlan(o.DataDir, o.Plan)
	if err != nil {
		return nil, err
	}
	inBytes, err := canon.Marshal(inputs)
	if err != nil {
		return nil, err
	}
	inBlob, err := st.Put(inBytes)
	if err != nil {
		return nil, err
	}
	now := chain.FormatTime(time.Now())
	if o.Epoch != nil {
		now = chain.FormatTime(*o.Epoch)
	}
	var (
		rl  *runlog.Run
		cp  checkpoint
		rec runlog.Record
	)
	// A random id that is already taken is drawn again, so a collision is
	// never a failed run; a derived id that is taken is the caller's to
	// handle (runlog.ErrExists).
	for try := 1; ; try++ {
		id, err := runID(o.Epoch, o.PlanHash, inputs, o.Seed, o.Provider, o.Model, o.Kind, o.Case)
		if err != nil {
			return nil, err
		}
		outDir := o.OutDir
		if outDir == "" {
			outDir = filepath.Join(o.DataDir, "out", id)
		}
		if abs, err := filepath.Abs(outDir); err == nil {
			outDir = abs
		}
		if o.NoExport {
			outDir = ""
		}
		cp = checkpoint{
			Format: 1, Plan: o.PlanHash.String(), PlanBlob: planBlob.String(), Inputs: inBlob.String(),
			Kind: o.Kind, Source: o.Source, BaseDir: baseDir, Provider: o.Provider, Model: o.Model,
			Seed: o.Seed, Parallel: o.Parallel, Actor: o.Actor, OutDir: outDir,
		}
		rec = runlog.Record{
			ID: id, Plan: o.PlanHash.String(), Flow: o.Source, Kind: o.Kind, Origin: o.Origin, Actor: o.Actor,
			Provider: o.Provider, Model: o.Model, Seed: o.Seed, InputsHash: hashid.Sum(inBytes).String(),
			Inputs: inBytes, Status: runlog.StatusRunning, Created: now, Started: now,
		}
		rl, err = create(o.DataDir, id, cp, rec, o.Replace && o.Epoch != nil)
		if err == nil {
			break
		}
		if o.Epoch != nil || !errors.Is(err, runlog.ErrExists) || try == randomIDTries {
			return nil, err
		}
	}
	id := rec.ID
	defer rl.Close()
	rl.PinClock(o.Epoch)
	if o.Started != nil {
		o.Started(id)
	}
	if _, err := rl.Append("run.started", "", startedData(o.Plan, cp, inputs, rec.InputsHash, pre.sourceHashes())); err != nil {
		return nil, err
	}
	return execute(ctx, rl, cp, o.Plan, inputs, prov, nil, o.Observe, false, o.Interaction, pre)
}

// withDefaults fills in the kind and provider a run has when none is
// given, and refuses a plan the engine cannot run.
func withDefaults(p *plan.Plan, kind, prov *string) error {
	if p == nil {
		return errors.New("run: no plan")
	}
	if *kind == "" {
		*kind = KindExploratory
	}
	if *prov == "" {
		*prov = "mock"
	}
	return engine.CheckSupported(p)
}

// checkBeforeRun makes the run's provider and checks, before anything is
// created, what would make the run fail at its first step: an untrusted
// agentlab.toml, a provider that cannot be made, a model the plan does not
// name, retrieval models whose endpoint can only fail, this machine's
// settings. Warnings about a script provider go to warn.
func checkBeforeRun(p *plan.Plan, spec string, popts provider.Options, warn func(diag.List)) (provider.Provider, error) {
	if err := CheckConfigTrust(popts.BaseDir); err != nil {
		return nil, err
	}
	prov, err := provider.New(spec, popts)
	if err != nil {
		return nil, &UsageError{err}
	}
	if err := checkModelNamed(spec, popts.Model, p); err != nil {
		return nil, &UsageError{err}
	}
	if err := checkRetrievalModels(p, provider.NewRetrievalModels(provider.Options{BaseDir: popts.BaseDir})); err != nil {
		return nil, &UsageError{err}
	}
	if l := scriptWarnings(p, prov); len(l) > 0 && warn != nil {
		warn(l)
	}
	if err := CheckMachine(); err != nil {
		return nil, err
	}
	return prov, nil
}

// storePlan stores the plan's canonical form in the data dir's artifact
// store, refusing a plan that holds a secret, and returns the store and
// the plan's artifact id.
func storePlan(dataDir string, p *plan.Plan) (store.Store, hashid.ID, error) {
	RegisterPlanSecrets(p)
	planBytes, err := p.Canonical()
	if err != nil {
		return nil, hashid.ID{}, err
	}
	if err := checkPlanHoldsNoSecret(planBytes); err != nil {
		return nil, hashid.ID{}, err
	}
	st, err := store.OpenFileStore(runlog.ArtifactsDir(dataDir))
	if err != nil {
		return nil, hashid.ID{}, err
	}
	id, err := st.Put(planBytes)
	if err != nil {
		return nil, hashid.ID{}, err
	}
	return st, id, nil
}

// startedData is run.started's payload: what pins the run's behaviour.
// Machine-specific facts (paths, the actor) stay in run.json so that the
// sealed chain is the same on every machine.
func startedData(p *plan.Plan, cp checkpoint, inputs map[string]any, inputsHash string, src map[string]string) map[string]any {
	d := map[string]any{
		"plan": cp.Plan, "inputs": inputs, "inputs_hash": inputsHash, "seed": cp.Seed,
		"provider": cp.Provider, "kind": cp.Kind, "tier": p.Tier, "flow": p.Name,
	}
	if cp.Model != "" {
		d["model"] = cp.Model
	}
	if len(src) > 0 {
		d["sources"] = src
	}
	return d
}

// sourceHashes is the BLAKE3 id of each source file's bytes as the
// preflight loaded them (the bytes every query reads), so a run reads and
// hashes its data once.
func (pre *setup) sourceHashes() map[string]string {
	if pre == nil || pre.sources == nil {
		return nil
	}
	return pre.sources.SourceHashes()
}

// execute runs the engine and writes how the run ended. pre is the
// configuration prepare checked before the run was created or resumed;
// the caller closes it.
func execute(ctx context.Context, rl *runlog.Run, cp checkpoint, p *plan.Plan, inputs map[string]any, prov provider.Provider, prior *engine.Prior, observe func(engine.Update), resumed bool, ia Interaction, pre *setup) (*Outcome, error) {
	host, closeHost, err := newHost(ctx, rl, cp, p, prov, ia, pre)
	if err != nil {
		return nil, refused(rl, err)
	}
	defer closeHost()
	ev, err := loadEvidence(rl, pre.sources) // evidence.go
	if err != nil {
		return nil, refused(rl, err)
	}
	memDir := filepath.Join(dataDirOf(rl), "memory")
	res, err := engine.Run(ctx, engine.Config{
		Plan: p, Inputs: inputs, Seed: cp.Seed, Parallel: cp.Parallel,
		Recorder: recorder{rl}, Model: model{prov}, DefaultModel: cp.Model,
		MemoryDir: memDir, Actor: cp.Actor, Prior: prior, Observe: observe,
		Host:      host,
		Retrieval: provider.NewRetrievalModels(provider.Options{BaseDir: cp.BaseDir}),
		Sources:   ev.sources, Ledger: ev.ledger, Unfinished: ev.unfinished, GetArtifact: ev.get, BaseDir: cp.BaseDir, Kind: cp.Kind,
	})
	if err != nil {
		return nil, refused(rl, &UsageError{err})
	}
	out := &Outcome{RunID: rl.ID(), DataDir: dataDirOf(rl), Status: res.Status, Kind: cp.Kind, Plan: cp.Plan, OutDir: cp.OutDir, Nodes: res.Nodes, Steps: res.Steps, Resumed: resumed}
	out.Warnings = runWarnings(rl.Events()) // warnings.go
	rec := rl.Record()
	rec.Status = res.Status
	switch res.Status {
	case engine.StatusSucceeded:
		// outputs.json and the console get them from here, not from the
		// (redacted) event log: redact them the same way.
		out.Outputs = res.Outputs
		if m, ok := redact.Any(res.Outputs).(map[string]any); ok {
			out.Outputs = m
		}
		out.Tier = tierOf(rl.Events())
		if _, err := rl.Append("run.finished", "", map[string]any{"status": res.Status, "outputs": res.Outputs, "tier": tierValue(out.Tier), "kind": cp.Kind}); err != nil {
			return nil, err
		}
		return finishSealed(rl, cp, out)
	case engine.StatusWaiting:
		return pause(rl, out, res)
	case engine.StatusCancelled:
		out.Error = redact.String(res.Err.Error())
		out.Rejected = isRejection(res)
		if _, err := rl.Append("run.cancelled", "", map[string]any{"reason": out.Error}); err != nil {
			return nil, err
		}
	default:
		out.Error = redact.String(res.Err.Error())
		if _, err := rl.Append(EvRunFailed, "", map[string]any{"status": res.Status, "error": out.Error}); err != nil {
			return nil, err
		}
	}
	rec.Error = out.Error
	rec.Finished = rl.Now()
	if err := rl.WriteRecord(rec); err != nil {
		return nil, err
	}
	return out, nil
}

// finishSealed seals a run whose run.finished is written, records its
// outputs and writes outputs.json into the out directory. It is also how
// resume completes a run killed between run.finished and the seal.
func finishSealed(rl *runlog.Run, cp checkpoint, out *Outcome) (*Outcome, error) {
	out.Tier, out.TierReasons = issuanceOf(rl.Events())
	outBytes, err := canon.Marshal(out.Outputs)
	if err != nil {
		return nil, err
	}
	// outputs.json and issuance.json before the seal: sealing writes
	// run.json with the seal, and once run.json holds a seal and says
	// succeeded, resume changes nothing, so a failure after that point must
	// not leave the exported copies missing.
	if cp.OutDir != "" { // "": a run started with NoExport
		if err := os.MkdirAll(cp.OutDir, 0o755); err != nil {
			return nil, err
		}
		pretty, _ := runlog.MarshalReadable(out.Outputs)
		if err := fsutil.WriteFileAtomic(filepath.Join(cp.OutDir, "outputs.json"), append(pretty, '\n'), 0o644); err != nil {
			return nil, err
		}
		if err := writeIssuance(cp.OutDir, out); err != nil {
			return nil, err
		}
	}
	_, h, err := rl.Seal(cp.Plan, func(rec *runlog.Record) {
		rec.Status, rec.Outputs, rec.Error, rec.Finished, rec.Tier = engine.StatusSucceeded, outBytes, "", rl.Now(), out.Tier
	})
	if err != nil {
		return nil, err
	}
	out.Seal = h.String()
	return out, nil
}

// withSourceDir makes the fix of a data file that cannot be opened name
// the directory its path is relative to: the flow's, or the plan's when a
// compiled plan is run (the plan keeps paths as the flow wrote them).
// When the run comes from a flow file, a problem whose fix is in the flow
// (a wrong path, kind, table or mask column) is placed at that field of
// the flow's sources: entry, and a problem inside the data file says where
// the flow declares it (see placeSourceDiag).
func withSourceDir(err error, cp checkpoint) error {
	var le *sources.LoadError
	if !errors.As(err, &le) {
		return err
	}
	fromPlan := isPlanFile(cp.Source)
	what := "the flow file's directory"
	if fromPlan {
		what = "the plan file's directory"
	}
	if cp.BaseDir != "" {
		what += " (" + cp.BaseDir + ")"
	}
	for i, d := range le.Diagnostics {
		if d.Code == sources.CodeOpen {
			fix := "check the path; it is relative to " + what
			if fromPlan {
				fix += "; keep the compiled plan next to its flow, or compile it with -o into the flow's directory"
			}
			le.Diagnostics[i].Fix = fix
		}
		if !fromPlan && cp.Source != "" {
			le.Diagnostics[i] = placeSourceDiag(le.Diagnostics[i], cp.Source)
		}
	}
	le.Diagnostics = le.Diagnostics.Sorted()
	return err
}

// placeSourceDiag relates a source load diagnostic to the flow file. The
// messages start with `source "<key>": `, which names the entry.
func placeSourceDiag(d diag.Diagnostic, flowFile string) diag.Diagnostic {
	var key string
	if _, err := fmt.Sscanf(d.Message, "source %q:", &key); err != nil {
		return d
	}
	field, inFlow := sources.DeclaredField(d.Code)
	pos, ok := flowSourcePos(flowFile, key, field)
	if !ok {
		return d
	}
	if inFlow {
		if d.File != "" && !strings.Contains(d.Message, d.File) {
			d.Message += " (data file " + d.File + ")"
		}
		d.File, d.Line, d.Col = flowFile, pos.Line, pos.Col
		return d
	}
	d.Message += fmt.Sprintf(" (declared at %s:%d:%d)", flowFile, pos.Line, pos.Col)
	return d
}

// isPlanFile reports whether path holds a compiled plan rather than a flow,
// by the same rule as the run command (plan.IsPlan).
func isPlanFile(path string) bool {
	b, err := fsutil.ReadFileCapped(path, 32<<20, "")
	return err == nil && plan.IsPlan(b)
}

// dataDirOf returns the data dir of an open run.
func dataDirOf(rl *runlog.Run) string { return rl.DataDir() }

// create makes the run directory with its checkpoint and record
// (runlog.CreateWith). A directory without a checkpoint can only be left
// by an older version killed right after creating it; it holds nothing
// resumable and, with a derived run id (SOURCE_DATE_EPOCH), would block
// the same run forever, so it is removed (under its lock) and created
// afresh.
//
// With replace, any run left under the id is removed the same way (see
// Options.Replace).
func create(dataDir, id string, cp checkpoint, rec runlog.Record, replace bool) (*runlog.Run, error) {
	rl, err := runlog.CreateWith(dataDir, id, cp, rec)
	if err == nil || !errors.Is(err, runlog.ErrExists) {
		return rl, err
	}
	old, oerr := runlog.Open(dataDir, id)
	if oerr != nil {
		return nil, err
	}
	var prev checkpoint
	cerr := old.ReadCheckpoint(&prev)
	if !replace && (cerr == nil || !errors.Is(cerr, fs.ErrNotExist)) {
		old.Close()
		return nil, err
	}
	dir := old.Dir()
	if rerr := os.RemoveAll(dir); rerr != nil {
		old.Close()
		return nil, err
	}
	old.Close()
	return runlog.CreateWith(dataDir, id, cp, rec)
}

// writeIssuance writes issuance.json next to outputs.json when an output
// has a contract: {"tier": …, "reasons": […]}, so that whoever takes the
// outputs also gets the declaration of what could not be traced, was
// missing or could not be checked (docs/evidence.md). The outputs themselves stay
// exactly what the flow produced.
func writeIssuance(dir string, out *Outcome) error {
	if out.Tier == "" {
		return nil
	}
	reasons := out.TierReasons
	if reasons == nil {
		reasons = []string{}
	}
	b, err := json.MarshalIndent(struct {
		Tier    string   `json:"tier"`
		Reasons []string `json:"reasons"`
	}{out.Tier, reasons}, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, "issuance.json"), append(b, '\n'), 0o644)
}

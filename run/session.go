package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/sources"
	"github.com/agentlab/agentlab/run/store"
)

// SessionOptions describe the runs of a Session: one plan under one
// provider and model, each run with its own inputs and seed.
type SessionOptions struct {
	DataDir  string
	Plan     *plan.Plan
	PlanHash hashid.ID
	Source   string // the flow or plan file (see Options.Source)
	Kind     string
	Provider string
	Model    string
	Actor    string
	Origin   string
	// Epoch fixes the clock of every run (SOURCE_DATE_EPOCH).
	Epoch *time.Time
	// Salt enters every run id when Epoch is nil (64 random bits when
	// empty), so that the ids of two sessions never meet; under a fixed
	// clock ids derive from the run's content and Case alone, the same on
	// every machine.
	Salt string
	// Workers is how many runs may execute at once (at least 1): each
	// has its own checked configuration and connections to the sources.
	Workers     int
	SourceCache *sources.Cache
	// Warn receives, once, the warnings found before any run.
	Warn func(diag.List)
}

// Session runs many short runs of one plan in memory: an evaluation's
// cases. Everything a run checks and opens before its first node (the
// provider's configuration, [permissions], [mcp], [sandbox], the data
// sources, the plan's canonical form) is checked and opened once, and
// each run's events are chained, redacted and sealed exactly as a run on
// disk, but kept in memory (runlog.NewMemory) and handed back with the
// outcome for the caller to store. A session's runs cannot be resumed or
// approved: a run cut short is run again.
type Session struct {
	o       SessionOptions
	baseDir string
	planRef string
	store   store.Store // the data dir's artifact store, shared by the runs
	// scratch holds the working directories of the runs' code nodes,
	// <data-dir>/tmp/session-<random>, removed by Close.
	scratch string
	setups  chan *setup
	all     []*setup
}

// SessionRun is one run of a session.
type SessionRun struct {
	Inputs   map[string]any
	Seed     int64
	Question string // the eval question it answers, for script files
	// Case tells apart runs whose plan, inputs, seed and provider are the
	// same (question/variant/repeat); it enters the run id.
	Case string
}

// MemoryOutcome is how a session's run ended: the Outcome, plus the
// run's whole event log (JSON lines, hash-chained; Outcome.Seal is the
// hash of the seal computed over it when the run succeeded).
type MemoryOutcome struct {
	*Outcome
	Log    []byte
	Events []chain.Event
	// Artifacts are the plan and the artifacts the run's events reference
	// (those its seal covers when it was sealed): the caller keeps them
	// under its own seal beside the log.
	Artifacts []string
}

// NewSession checks what every run of the session needs, as Start does
// for one run, and prepares o.Workers configurations. Close it.
func NewSession(ctx context.Context, o SessionOptions) (*Session, error) {
	if err := withDefaults(o.Plan, &o.Kind, &o.Provider); err != nil {
		return nil, err
	}
	if o.Workers < 1 {
		o.Workers = 1
	}
	if o.Epoch == nil && o.Salt == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		o.Salt = hex.EncodeToString(b[:])
	}
	var sb [8]byte
	if _, err := rand.Read(sb[:]); err != nil {
		return nil, err
	}
	s := &Session{o: o, baseDir: baseDirOf(o.Source), scratch: filepath.Join(o.DataDir, "tmp", "session-"+hex.EncodeToString(sb[:]))}
	if _, err := checkBeforeRun(o.Plan, o.Provider, provider.Options{Model: o.Model, BaseDir: s.baseDir}, o.Warn); err != nil {
		return nil, err
	}
	st, blob, err := storePlan(o.DataDir, o.Plan)
	if err != nil {
		return nil, err
	}
	s.planRef, s.store = blob.String(), st
	s.setups = make(chan *setup, o.Workers)
	for i := 0; i < o.Workers; i++ {
		pre, err := prepare(ctx, dataDirFor(o.DataDir), checkpoint{Source: o.Source, BaseDir: s.baseDir, Actor: o.Actor}, o.Plan, Interaction{}, o.SourceCache)
		if err != nil {
			s.Close()
			return nil, err
		}
		pre.keepTools = true
		if i == 0 && len(pre.warnings) > 0 && o.Warn != nil {
			o.Warn(pre.warnings)
		}
		s.all = append(s.all, pre)
		s.setups <- pre
	}
	return s, nil
}

// Close releases the session's configurations and sources.
func (s *Session) Close() {
	for _, pre := range s.all {
		pre.close()
	}
	s.all = nil
	os.RemoveAll(s.scratch)
	os.Remove(filepath.Dir(s.scratch)) // <data-dir>/tmp, when nothing else is in it
}

// Run executes one run in memory and seals it when it succeeds. An error
// means the run could not start (bad inputs, a provider that cannot be
// made); a run that ran and failed is an outcome with status failed.
func (s *Session) Run(ctx context.Context, r SessionRun) (*MemoryOutcome, error) {
	o := s.o
	inputs, err := engine.PrepareInputs(o.Plan.Inputs, r.Inputs)
	if err != nil {
		return nil, &UsageError{err}
	}
	prov, err := provider.New(o.Provider, provider.Options{Seed: r.Seed, Model: o.Model, BaseDir: s.baseDir, Question: r.Question})
	if err != nil {
		return nil, &UsageError{err}
	}
	inBytes, err := canon.Marshal(inputs)
	if err != nil {
		return nil, err
	}
	name := r.Case
	if o.Epoch == nil {
		name += "\x00" + o.Salt
	}
	id := derivedRunID(o.PlanHash, inBytes, r.Seed, o.Provider, o.Model, o.Kind, name)
	clock := time.Now()
	if o.Epoch != nil {
		clock = *o.Epoch
	}
	now := chain.FormatTime(clock)
	rec := runlog.Record{
		ID: id, Plan: o.PlanHash.String(), Flow: o.Source, Kind: o.Kind, Origin: o.Origin, Actor: o.Actor,
		Provider: o.Provider, Model: o.Model, Seed: r.Seed, InputsHash: hashid.Sum(inBytes).String(),
		Inputs: inBytes, Status: runlog.StatusRunning, Created: now, Started: now,
	}
	rl, err := runlog.NewMemory(o.DataDir, s.scratch, id, rec)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	rl.ShareStore(s.store)
	rl.PinClock(o.Epoch)
	cp := checkpoint{
		Format: 1, Plan: o.PlanHash.String(), PlanBlob: s.planRef, Kind: o.Kind, Source: o.Source, BaseDir: s.baseDir,
		Provider: o.Provider, Model: o.Model, Seed: r.Seed, Parallel: 1, Actor: o.Actor,
	}
	var pre *setup
	select {
	case pre = <-s.setups:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { s.setups <- pre }()
	if _, err := rl.Append(chain.TypeRunStarted, "", startedData(o.Plan, cp, inputs, rec.InputsHash, pre.sourceHashes())); err != nil {
		return nil, err
	}
	out, err := execute(ctx, rl, cp, o.Plan, inputs, prov, nil, nil, false, Interaction{}, pre)
	if _, serr := os.Lstat(rl.Dir()); serr == nil {
		os.RemoveAll(rl.Dir()) // a code node's working directory
	}
	if err != nil {
		return nil, err
	}
	evs := rl.Events()
	mo := &MemoryOutcome{Outcome: out, Log: rl.Log(), Events: evs}
	// The plan is kept with what the run references, so that the record
	// holding the run's log holds the plan its run.started names.
	mo.Artifacts = []string{s.planRef}
	if sd := rl.Record().SealData; sd != nil {
		mo.Artifacts = append(mo.Artifacts, sd.Artifacts...)
	} else {
		mo.Artifacts = append(mo.Artifacts, runlog.ReferencedArtifacts(evs)...)
	}
	return mo, nil
}

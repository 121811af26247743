package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/runlog"
)

// Oracle computes the expected values of a question's expectation for
// this evaluation (SQL over the flow's sources). It is asked once per
// question per evaluation, never cached across evaluations.
type Oracle interface {
	Expected(ctx context.Context, q *suite.Question) Expected
}

// Options configure Evaluate.
type Options struct {
	Suite    *suite.Suite
	Plan     *plan.Plan
	PlanHash hashid.ID
	Runner   Runner
	Oracle   Oracle // nil: sql expectations fail with "no oracle"
	Judge    Judge  // nil: key points are not judged
	// Variants, when set, keeps only these variants (by name).
	Variants []string
	Shard    *Shard
	Parallel int           // cases at once (default: settings.parallel, else 1)
	Timeout  time.Duration // per case (default: question, then settings timeout_s; 0 none)
	// MaxCostUSD stops starting cases once the measured cost reaches it
	// (default settings.max_cost_usd; 0 none).
	MaxCostUSD float64
	// DataDir, when set, records and seals the evaluation there.
	DataDir string
	Resume  bool
	Epoch   *time.Time
	// Baseline, when set, is compared with (BaselineFile names it).
	Baseline     *Result
	BaselineFile string
	// Config holds anything else that changes what the evaluation runs
	// (provider overrides): it enters the configuration hash --resume
	// matches on.
	Config map[string]any
	// Progress is called after each finished case (serially).
	Progress func(CaseResult)
	// Started is called with the evaluation id before the first case.
	Started func(id string, resumed bool)
	// Pending, when set, is called with the number of cases this attempt
	// will run (those not recorded yet), before the first one starts.
	Pending func(n int)
	// GroupCommit makes a recorded evaluation durable per batch of cases
	// instead of per file its case runs write: the runs skip their fsyncs
	// and one flush of the file system (fsutil.SyncFS) precedes each
	// batch's eval.case events (docs/evals.md, "Durability"). Ignored
	// where fsutil.CanSyncFS is false.
	GroupCommit bool
	// CaseLogs says the Runner hands back each case's whole log (cases run
	// in memory): the record says so, and verify then requires every
	// case's log in it.
	CaseLogs bool
	// Sources, when set, are the content hashes of the data sources the
	// cases read, by name (SourceOracle.SourceHashes): recorded when the
	// evaluation starts, and compared on --resume.
	Sources map[string]string
	// SuiteJSON, when set, is the suite's canonical JSON as Suite.Hash
	// returns it, for a caller that computed it already (a suite of many
	// questions takes a noticeable time to encode).
	SuiteJSON []byte
}

// suiteHash returns the suite's hash and canonical JSON, from SuiteJSON
// when the caller gave it.
func (o *Options) suiteHash() (hashid.ID, []byte, error) {
	if o.SuiteJSON != nil {
		return hashid.Sum(o.SuiteJSON), o.SuiteJSON, nil
	}
	return o.Suite.Hash()
}

// Bounds of a batch of recorded cases: it is committed once it holds
// batchCases cases or its first case has waited batchWait, and when the
// evaluation ends. Under a fixed clock (SOURCE_DATE_EPOCH) there is no
// wait: batches then end where the count says, so that the record, whose
// batches are artifacts under the seal, never depends on how fast the
// cases ran.
const batchCases = 100

var batchWait = time.Second // a variable for the tests

// ErrResumeNothing says --resume found no evaluation of this configuration.
var ErrResumeNothing = errors.New("no evaluation of this suite with these options to resume")

// Cases lists the cases of the options' suite, variants and shard, in
// question order, then variant, then repeat.
func Cases(o *Options) ([]Case, []string, []suite.Variant) {
	s := o.Suite
	var vs []suite.Variant
	for _, v := range s.Variants {
		if len(o.Variants) == 0 || containsStr(o.Variants, v.Name) {
			vs = append(vs, v)
		}
	}
	var cs []Case
	var qs []string
	for i := range s.Questions {
		q := &s.Questions[i]
		if !o.Shard.Has(q.ID) {
			continue
		}
		qs = append(qs, q.ID)
		for j := range vs {
			for r := 0; r < vs[j].Repeats; r++ {
				cs = append(cs, Case{Question: q, Variant: &vs[j], Repeat: r})
			}
		}
	}
	return cs, qs, vs
}

// configHash identifies what an evaluation runs, for --resume.
func configHash(o *Options, suiteHash string, vs []suite.Variant) (hashid.ID, error) {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	shard := ""
	if o.Shard != nil {
		shard = o.Shard.String()
	}
	b, err := canon.Marshal(map[string]any{"suite": suiteHash, "plan": o.PlanHash.String(), "variants": names, "shard": shard, "config": o.Config})
	if err != nil {
		return hashid.ID{}, err
	}
	return hashid.Sum(b), nil
}

// ConfigID is what every evaluation of these options (suite, plan,
// variants, shard, overrides) has in common, "eval-" and 12 hex digits:
// the prefix of their record ids, and the name under which a shared store
// keeps the latest result of each shard, so that a merge finds the parts
// without being told their run ids.
func ConfigID(o *Options) (string, error) {
	suiteHash, _, err := o.suiteHash()
	if err != nil {
		return "", err
	}
	_, _, vs := Cases(o)
	cfg, err := configHash(o, suiteHash.String(), vs)
	if err != nil {
		return "", err
	}
	return evalPrefix(cfg), nil
}

// Evaluate runs every case not finished yet and scores it, then builds
// and (with a DataDir) seals the result. ctx cancellation stops starting
// new cases; finished ones are kept and can be resumed.
func Evaluate(ctx context.Context, o Options) (*Result, error) {
	s := o.Suite
	if s == nil || o.Plan == nil || o.Runner == nil {
		return nil, errors.New("eval: suite, plan and runner are required")
	}
	for _, v := range o.Variants {
		if _, ok := s.Variant(v); !ok {
			return nil, fmt.Errorf("the suite has no variant %q", v)
		}
	}
	suiteHash, suiteJSON, err := o.suiteHash()
	if err != nil {
		return nil, err
	}
	o.SuiteJSON = nil // stored once with the record below, not held through every case
	cases, qids, vs := Cases(&o)
	res := &Result{
		Format: ResultFormat, Suite: suiteHash.String(), Name: s.Name, Flow: s.Flow, Plan: o.PlanHash.String(),
		Shard: o.Shard, Questions: qids, Status: "complete", Pairs: []Pair{}, Cases: []CaseResult{},
	}
	if res.Questions == nil {
		res.Questions = []string{}
	}
	res.Estimate = EstimateCost(o.Plan, vs, len(qids))
	cfg, err := configHash(&o, res.Suite, vs)
	if err != nil {
		return nil, err
	}

	var rec *recorder
	done := map[Key]CaseResult{}
	shard := ""
	if o.Shard != nil {
		shard = o.Shard.String()
	}
	rs := recordStart{cfg: cfg, suiteHash: res.Suite, planHash: res.Plan, suiteJSON: suiteJSON, epoch: o.Epoch, sources: o.Sources,
		started: map[string]any{"flow": s.Flow, "name": s.Name, "config": cfg.String(), "shard": shard,
			"cases": len(cases), "questions": len(qids), "variants": variantNamesOf(vs)}}
	if o.CaseLogs {
		rs.started["case_logs"] = true
	}
	if o.DataDir != "" {
		if o.Resume {
			id, finished, err := findResumable(o.DataDir, cfg)
			if err != nil {
				return nil, err
			}
			switch {
			case id == "":
				return nil, ErrResumeNothing
			case finished:
				// A finished evaluation is shown as it was sealed; nothing changes.
				got, seal, err := readFinished(o.DataDir, id)
				if err != nil {
					return nil, err
				}
				res.Eval, res.Seal = id, seal
				return assemble(res, cases, got, o), nil
			}
			if rec, err = reopenRecord(o.DataDir, id, rs); err != nil {
				return nil, err
			}
			res.Eval = id
			done = rec.done
		} else {
			id, err := newEvalID(cfg, o.Epoch)
			if err != nil {
				return nil, err
			}
			if rec, err = openRecord(o.DataDir, id, rs); err != nil {
				if errors.Is(err, runlog.ErrExists) {
					return nil, fmt.Errorf("%w: evaluation %s was run before with this suite and these options (SOURCE_DATE_EPOCH fixes its id); show or continue it with --resume, or remove %s",
						runlog.ErrExists, id, filepath.Join(runlog.RunsDir(o.DataDir), id))
				}
				return nil, err
			}
			res.Eval = id
		}
		defer rec.close()
	}
	rs.suiteJSON = nil
	if o.Started != nil {
		o.Started(res.Eval, o.Resume)
	}

	todo := make([]Case, 0, len(cases))
	for _, c := range cases {
		if _, ok := done[c.Key()]; !ok {
			c.Resumed = o.Resume
			todo = append(todo, c)
		}
	}
	if o.Pending != nil {
		o.Pending(len(todo))
	}
	// With a group commit the case runs skip their fsyncs and each batch
	// is flushed at once before it is recorded; the summary, the cases
	// artifact and the seal are then written with every fsync, as usual.
	var commit func() error
	endGroup := func() {}
	if rec != nil && o.GroupCommit && fsutil.CanSyncFS {
		endGroup = fsutil.DeferSync(rec.rl.Dir())
		commit = func() error { return fsutil.SyncFS(o.DataDir) }
	}
	defer endGroup()
	// Cases not started (cost cap, cancellation) are simply absent from
	// done; assemble counts them as unrun.
	prior := 0.0
	for _, c := range done {
		prior += c.CostUSD
	}
	got, err := runCases(ctx, &o, todo, rec, prior, commit)
	endGroup()
	if err != nil {
		return nil, err
	}
	if len(done) == 0 {
		// A fresh evaluation: the cases ran in their order, so they are
		// the result as they stand (no map of every case, no copy).
		res.Cases = got
		res = summarize(res, len(cases)-len(got), o)
	} else {
		for _, c := range got {
			done[c.Key()] = c
		}
		res = assemble(res, cases, done, o)
	}
	if rec != nil {
		if res.Status == "complete" {
			seal, err := rec.finish(res)
			if err != nil {
				return nil, err
			}
			res.Seal = seal
		} else if err := rec.stop(res.Unrun, ctx.Err() != nil); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// assemble orders the finished cases and computes summaries, pairs, the
// baseline comparison and the exit code.
func assemble(res *Result, cases []Case, done map[Key]CaseResult, o Options) *Result {
	res.Cases = make([]CaseResult, 0, len(done))
	unrun := 0
	for _, c := range cases {
		if cr, ok := done[c.Key()]; ok {
			res.Cases = append(res.Cases, cr)
		} else {
			unrun++
		}
	}
	return summarize(res, unrun, o)
}

// summarize records how many cases did not run and computes summaries,
// pairs, the baseline comparison and the exit code of res.Cases.
func summarize(res *Result, unrun int, o Options) *Result {
	res.Unrun = unrun
	if unrun > 0 {
		res.Status = "incomplete"
	}
	res.Summary = Summarize(res.Cases)
	res.Pairs = Pairs(res.Cases, variantNames(res.Cases))
	if o.Baseline != nil {
		res.Baseline = Compare(o.Baseline, res, o.BaselineFile)
	}
	res.Exit = ExitCode(res)
	return res
}

// runCases runs todo with o.Parallel workers. Finished cases go to one
// writer, which appends whatever has accumulated as one batch (one fsync
// for many cases while the workers keep going). It returns the scored
// cases in the order of todo; those not started (cost cap or
// cancellation) are absent.
// spent is what earlier attempts of a resumed evaluation cost: the cap is
// on the whole evaluation.
func runCases(ctx context.Context, o *Options, todo []Case, rec *recorder, spent float64, commit func() error) ([]CaseResult, error) {
	par := o.Parallel
	if par <= 0 {
		par = o.Suite.Settings.Parallel
	}
	if par <= 0 {
		par = 1
	}
	maxCost := o.MaxCostUSD
	if maxCost <= 0 {
		maxCost = o.Suite.Settings.MaxCostUSD
	}
	exp := newExpectations(o.Oracle, todo)
	var (
		spentMu sync.Mutex
		next    atomic.Int64
		wg      sync.WaitGroup
	)
	results := make(chan finishedCase, 4*par)
	out := make([]CaseResult, 0, len(todo))
	writeErr := make(chan error, 1)
	go func() {
		wait := batchWait
		if o.Epoch != nil {
			wait = 0
		}
		writeErr <- writeCases(results, rec, commit, &out, o.Progress, wait)
	}()
	for w := 0; w < min(par, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(todo) {
					return
				}
				spentMu.Lock()
				over := maxCost > 0 && spent >= maxCost
				spentMu.Unlock()
				if over || ctx.Err() != nil {
					results <- finishedCase{index: i}
					continue
				}
				cr, cutShort := runOne(ctx, o, todo[i], exp)
				if cutShort {
					// Cut short by the interruption, not by the flow: leave it
					// for --resume instead of recording a failure.
					results <- finishedCase{index: i}
					continue
				}
				spentMu.Lock()
				spent += cr.CostUSD
				spentMu.Unlock()
				results <- finishedCase{index: i, result: &cr}
			}
		}()
	}
	wg.Wait()
	close(results)
	if err := <-writeErr; err != nil {
		return nil, err
	}
	return out, nil
}

// finishedCase is what a worker hands the writer for todo[index]: the
// scored case, or nil when it was not run (cost cap, interruption).
type finishedCase struct {
	index  int
	result *CaseResult
}

// writeCases drains results into out, recording them in batches and in
// the order of the cases, whatever order the workers finish them in, so
// that the record's events, and with them the seal, are the same with
// --parallel 1 and 8. A batch is recorded once it holds batchCases cases,
// once its first case has waited wait (if wait is not 0), and at the end; commit, when
// set, runs first (the group commit's flush). A case that finished early
// waits in memory for the ones before it, and a finished case waits for
// its batch; if the evaluation is killed meanwhile, --resume runs it
// again. Progress is reported as cases finish. After a write error it
// keeps draining (so workers never block) and returns the first error.
func writeCases(results <-chan finishedCase, rec *recorder, commit func() error, out *[]CaseResult, progress func(CaseResult), wait time.Duration) error {
	var firstErr error
	waiting := map[int]*CaseResult{}
	skipped := map[int]bool{}
	next := 0
	batch := make([]*CaseResult, 0, batchCases)
	var due <-chan time.Time
	flush := func() {
		due = nil
		if len(batch) == 0 {
			return
		}
		if firstErr == nil {
			switch {
			case rec == nil:
				for _, c := range batch {
					c.runLog, c.runArtifacts = nil, nil // nowhere to keep them
					if _, err := c.seal(); err != nil && firstErr == nil {
						firstErr = err
					}
				}
			case commit != nil:
				if firstErr = commit(); firstErr == nil {
					firstErr = rec.addCases(batch)
				}
			default:
				firstErr = rec.addCases(batch)
			}
		}
		for _, c := range batch {
			*out = append(*out, *c)
		}
		batch = batch[:0]
	}
	take := func(f finishedCase) {
		if f.result == nil {
			skipped[f.index] = true
		} else {
			waiting[f.index] = f.result
			if progress != nil {
				progress(*f.result)
			}
		}
		for {
			if skipped[next] {
				delete(skipped, next)
				next++
				continue
			}
			c, ok := waiting[next]
			if !ok {
				return
			}
			delete(waiting, next)
			batch = append(batch, c)
			next++
			if len(batch) == 1 && wait > 0 {
				due = time.After(wait)
			}
			if len(batch) >= batchCases {
				flush()
			}
		}
	}
	for {
		select {
		case f, ok := <-results:
			if !ok {
				flush()
				return firstErr
			}
			take(f)
			if rec == nil {
				flush() // nothing to commit: in memory, every case at once
			}
		case <-due:
			flush()
		}
	}
}

// runOne runs, scores and judges one case. cutShort reports that the
// interruption of ctx, not the flow, decided part of it (the run, or a
// judge call): such a case is not recorded.
func runOne(ctx context.Context, o *Options, c Case, exp *expectations) (cr CaseResult, cutShort bool) {
	timeout := o.Timeout
	if c.Question.TimeoutS > 0 {
		timeout = time.Duration(c.Question.TimeoutS * float64(time.Second))
	} else if timeout <= 0 && o.Suite.Settings.TimeoutS > 0 {
		timeout = time.Duration(o.Suite.Settings.TimeoutS * float64(time.Second))
	}
	cctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	start := time.Now()
	ans, err := o.Runner.Run(cctx, c)
	if err != nil {
		ans = Answer{Status: StatusError, Error: err.Error()}
	}
	if cctx.Err() != nil && ctx.Err() == nil && ans.Status != StatusSucceeded {
		ans.Status = StatusCancelled
		ans.Error = fmt.Sprintf("the question took longer than its %s timeout", timeout)
	}
	// The expectation is a local query over the flow's sources under its
	// own deadline: an interruption must not turn it into an error that
	// would be recorded (and cached) as the question's failure.
	e := exp.get(context.WithoutCancel(ctx), c.Question)
	cr = Score(c.Question, e, ans, o.Suite.CardFor)
	cutShort = ctx.Err() != nil && ans.Status != StatusSucceeded
	cr.Variant, cr.Repeat = c.Variant.Name, c.Repeat
	for _, kp := range c.Question.KeyPoints {
		v := VerdictNotJudged
		if c.Variant.Judge && o.Judge != nil && ans.Status == StatusSucceeded {
			verdict, u, err := o.Judge.Judge(ctx, c, ans.Text, kp)
			if err == nil {
				v = verdict
				cr.Tokens += u.InputTokens + u.OutputTokens
				cr.CostUSD += u.CostUSD
			} else if ctx.Err() != nil {
				cutShort = true
			}
		}
		cr.KeyPoints = append(cr.KeyPoints, KeyPoint{Point: kp, Verdict: v})
	}
	if o.Epoch == nil {
		// Under a fixed clock (SOURCE_DATE_EPOCH) times are not recorded,
		// so that the evaluation's seal is reproducible.
		cr.Millis = float64(time.Since(start).Microseconds()) / 1000
	}
	return cr, cutShort
}

// expectations computes each distinct expectation query once per
// evaluation, and forgets it once the last case that needs it has it, so
// that a large suite's expected values are not all held to the end.
type expectations struct {
	o  Oracle
	mu sync.Mutex
	m  map[string]*onceExpected
}

type onceExpected struct {
	once sync.Once
	e    Expected
	uses int // cases still to ask for it
}

// newExpectations prepares the expectations of the cases in todo.
func newExpectations(o Oracle, todo []Case) *expectations {
	x := &expectations{o: o, m: map[string]*onceExpected{}}
	for _, c := range todo {
		if c.Question.Expect.Kind != suite.KindSQL {
			continue
		}
		k := expectationKey(c.Question)
		oe := x.m[k]
		if oe == nil {
			oe = &onceExpected{}
			x.m[k] = oe
		}
		oe.uses++
	}
	return x
}

// expectationKey is the query and its source, not the question: questions
// that share a query share its one evaluation.
func expectationKey(q *suite.Question) string { return q.Expect.Source + "\x00" + q.Expect.SQL }

func (x *expectations) get(ctx context.Context, q *suite.Question) Expected {
	if q.Expect.Kind != suite.KindSQL {
		return Expected{}
	}
	key := expectationKey(q)
	x.mu.Lock()
	oe, ok := x.m[key]
	if !ok { // not among the cases it was prepared for: kept to the end
		oe = &onceExpected{}
		x.m[key] = oe
	}
	x.mu.Unlock()
	oe.once.Do(func() {
		if x.o == nil {
			oe.e = Expected{SQL: q.Expect.SQL, Err: errors.New("no data sources are loaded to compute it")}
			return
		}
		oe.e = x.o.Expected(ctx, q)
	})
	x.mu.Lock()
	if oe.uses > 0 {
		if oe.uses--; oe.uses == 0 {
			delete(x.m, key)
		}
	}
	x.mu.Unlock()
	return oe.e
}

// variantNamesOf lists the names of vs, in suite order.
func variantNamesOf(vs []suite.Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

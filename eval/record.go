package eval

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/verify"
)

// Event types of an evaluation's log, besides run.started and
// run.finished (whose first occurrence ends the sealed prefix).
const (
	EvCase = "eval.case" // one finished case: {case, address}
	// EvRuns precedes a batch's eval.case events when some of its cases
	// ran in memory: {runs, runs_artifact, artifacts}, runs their ids,
	// runs_artifact their event logs one after another (JSON lines; each
	// log starts again at seq 1) in the same order, and artifacts what
	// those logs reference, which the evaluation's seal so covers.
	EvRuns    = "eval.runs"
	EvResumed = "eval.resumed" // a resumed attempt starts here
	EvStopped = "eval.stopped" // an attempt ended with cases unrun: {unrun, reason}
	// KindEval is the run kind of an evaluation's record.
	KindEval = "eval"
)

// checkpoint is the evaluation's checkpoint.json: what --resume checks to
// refuse continuing under another configuration.
type checkpoint struct {
	Format int    `json:"format"`
	Config string `json:"config"`
	Suite  string `json:"suite"`
	Plan   string `json:"plan"`
	// Sources are the content hashes of the data the cases read, by
	// source name, as they were when the evaluation started: --resume
	// refuses to mix cases scored on two versions of the data.
	Sources map[string]string `json:"sources,omitempty"`
}

// recorder writes an evaluation's run-like record.
type recorder struct {
	rl      *runlog.Run
	suite   string
	done    map[Key]CaseResult
	closed  bool
	logsBuf []byte // runLogs' buffer, kept between batches
}

// evalPrefix is the run id prefix of evaluations with configuration cfg.
func evalPrefix(cfg hashid.ID) string { return "eval-" + cfg.Hex()[:12] }

// newEvalID returns a new evaluation id: derived from the configuration
// alone when the clock is fixed (SOURCE_DATE_EPOCH), else with the UTC
// time and a random suffix so that evaluations of one suite can coexist.
func newEvalID(cfg hashid.ID, epoch *time.Time) (string, error) {
	if epoch != nil {
		return evalPrefix(cfg), nil
	}
	id, err := randomSuffix()
	if err != nil {
		return "", err
	}
	return evalPrefix(cfg) + "-" + time.Now().UTC().Format("20060102T150405Z") + "-" + id, nil
}

// findResumable returns the newest evaluation with configuration cfg that
// has not finished, or the newest finished one when none is unfinished.
func findResumable(dataDir string, cfg hashid.ID) (id string, finished bool, err error) {
	ents, err := os.ReadDir(runlog.RunsDir(dataDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	prefix := evalPrefix(cfg)
	var cands []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			cands = append(cands, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(cands)))
	var last string
	var unreadable error
	for _, c := range cands {
		snap, err := runlog.OpenReadOnly(dataDir, c)
		if err != nil {
			if unreadable == nil {
				unreadable = fmt.Errorf("evaluation %s %w: %v; check it with agentlab verify %s", c, ErrRecordDamaged, err, filepath.Join(runlog.RunsDir(dataDir), c))
			}
			continue
		}
		if chain.SealedPrefix(snap.Events) < 0 {
			return c, false, nil
		}
		if last == "" {
			last = c
		}
	}
	if last != "" {
		return last, true, nil
	}
	// Nothing to resume but a record that cannot be read: say so, rather
	// than that there is no evaluation.
	return "", false, unreadable
}

// recordStart is what an evaluation's run.started says, and what opening
// its record needs besides: the suite, its canonical JSON and hash, the
// flow's plan hash and the configuration hash --resume matches on.
type recordStart struct {
	cfg       hashid.ID
	suiteHash string
	planHash  string
	suiteJSON []byte
	started   map[string]any
	epoch     *time.Time
	sources   map[string]string
}

// openRecord creates the evaluation's directory with its checkpoint and
// record in one step (runlog.CreateWith: killed at any instant, the
// directory does not exist or has both), then writes run.started.
func openRecord(dataDir, id string, rs recordStart) (*recorder, error) {
	now := chain.FormatTime(time.Now())
	if rs.epoch != nil {
		now = chain.FormatTime(*rs.epoch)
	}
	rl, err := runlog.CreateWith(dataDir, id, checkpoint{Format: 1, Config: rs.cfg.String(), Suite: rs.suiteHash, Plan: rs.planHash, Sources: rs.sources},
		runlog.Record{ID: id, Plan: rs.suiteHash, Flow: fmt.Sprint(rs.started["flow"]), Kind: KindEval,
			Origin: KindEval, Status: runlog.StatusRunning, Created: now, Started: now})
	if err != nil {
		return nil, err
	}
	rec, err := startRecord(rl, rs)
	if err != nil {
		rl.Close()
		return nil, err
	}
	return rec, nil
}

// startRecord stores the suite and writes run.started into an empty log.
func startRecord(rl *runlog.Run, rs recordStart) (*recorder, error) {
	rl.PinClock(rs.epoch)
	rl.KeepData(false) // a case event's data is the case, kept in done already
	blob, err := rl.PutArtifact(rs.suiteJSON)
	if err != nil {
		return nil, err
	}
	started := maps.Clone(rs.started)
	started["kind"] = KindEval
	started["suite"] = rs.suiteHash
	started["suite_artifact"] = blob.String()
	// The record is sealed under the suite (its plan), so run.started
	// names the suite as its plan, as every run's does (agentlab verify
	// checks it); the flow under test is flow_plan.
	started["plan"] = rs.suiteHash
	started["flow_plan"] = rs.planHash
	if _, err := rl.Append(chain.TypeRunStarted, "", started); err != nil {
		return nil, err
	}
	return &recorder{rl: rl, suite: rs.suiteHash, done: map[Key]CaseResult{}}, nil
}

// reopenRecord opens an unfinished evaluation and loads its finished
// cases, each checked against its content address. A record killed
// before its run.started (its log is empty) starts now, as a new one
// would: nothing of it had run.
func reopenRecord(dataDir, id string, rs recordStart) (*recorder, error) {
	rl, err := runlog.Open(dataDir, id)
	if err != nil {
		return nil, err
	}
	var cp checkpoint
	if err := rl.ReadCheckpoint(&cp); err != nil {
		rl.Close()
		return nil, err
	}
	if cp.Config != rs.cfg.String() {
		rl.Close()
		return nil, fmt.Errorf("evaluation %s was started with another suite, flow or options; start a new one without --resume", id)
	}
	if changed := changedSources(cp.Sources, rs.sources); changed != "" {
		rl.Close()
		return nil, fmt.Errorf("evaluation %s: %w since it started (%s); its cases would be scored on two versions of it. Restore the data, or start a new evaluation without --resume", id, ErrDataChanged, changed)
	}
	if seal := rl.Record().Seal; seal != "" {
		// Sealed, yet its log no longer ends where the seal does: no kill
		// does that (the sealed events were synced before the seal was
		// written); the log was cut afterwards, and resuming would seal
		// what is left over the evidence of it.
		rl.Close()
		return nil, fmt.Errorf("evaluation %s was sealed (%s), but %w: its log no longer holds what was sealed; restore %s, or check it with agentlab verify %s",
			id, seal, ErrRecordDamaged, runlog.EventsFile, filepath.Join(runlog.RunsDir(dataDir), id))
	}
	if len(rl.Events()) == 0 {
		rec, err := startRecord(rl, rs)
		if err != nil {
			rl.Close()
			return nil, err
		}
		return rec, nil
	}
	if n, torn := tornBatch(rl.Events()); torn {
		// A kill cut the last batch's append short: some of its lines
		// reached the file, not all. The batch was never acknowledged;
		// it is cut off (kept beside the log) and its cases run again.
		if err := rl.CutAfter(n); err != nil {
			rl.Close()
			return nil, err
		}
	}
	done, err := casesFrom(rl.Events())
	if err != nil {
		rl.Close()
		return nil, fmt.Errorf("evaluation %s: %w", id, err)
	}
	rl.PinClock(rs.epoch)
	rl.KeepData(false)
	rec := &recorder{rl: rl, suite: cp.Suite, done: done}
	if _, err := rl.Append(EvResumed, "", map[string]any{"finished_cases": len(rec.done)}); err != nil {
		rl.Close()
		return nil, err
	}
	return rec, nil
}

// tornBatch finds a batch whose append a kill cut short: the last
// eval.runs event names more runs than the eval.case events after it
// record. It returns how many events precede that eval.runs.
func tornBatch(evs []chain.Event) (int, bool) {
	last := -1
	for i, e := range evs {
		if e.Type == EvRuns {
			last = i
		}
	}
	if last < 0 {
		return 0, false
	}
	var d struct {
		Runs []string `json:"runs"`
	}
	if json.Unmarshal(evs[last].Data, &d) != nil {
		return 0, false
	}
	want := map[string]bool{}
	for _, r := range d.Runs {
		want[r] = true
	}
	for _, e := range evs[last+1:] {
		if e.Type != EvCase {
			continue
		}
		var c caseEvent
		if json.Unmarshal(e.Data, &c) == nil && c.Case != nil {
			delete(want, c.Case.Run)
		}
	}
	return last, len(want) > 0
}

// addCases appends one eval.case event per case with one write and one
// fsync (a group commit). The case travels inline in the event, under its
// content address; finish stores all cases as one artifact under the seal.
func (r *recorder) addCases(cs []*CaseResult) error {
	ps := make([]runlog.Pending, 0, len(cs)+1)
	if p, ok, err := r.runLogs(cs); err != nil {
		return err
	} else if ok {
		ps = append(ps, p)
	}
	for _, c := range cs {
		b, err := c.seal()
		if err != nil {
			return err
		}
		// The event data is built from the canonical case bytes directly
		// (keys "address" < "case" are in canonical order).
		data := make([]byte, 0, len(b)+96)
		data = append(data, `{"address":"`...)
		data = append(data, c.Address...)
		data = append(data, `","case":`...)
		data = append(data, b...)
		data = append(data, '}')
		ps = append(ps, runlog.Pending{Type: EvCase, Node: c.Question, Data: chain.CanonicalJSON(data)})
	}
	_, err := r.rl.AppendBatch(ps)
	return err
}

// runLogs stores the event logs of the batch's cases that ran in memory
// as one artifact and returns the eval.runs event naming it (ok false
// when no case of the batch has one). The artifact is durable with the
// batch (the group commit's flush), before the events that reference it.
func (r *recorder) runLogs(cs []*CaseResult) (runlog.Pending, bool, error) {
	var runs []string
	size := 0
	arts := map[string]bool{}
	for _, c := range cs {
		if len(c.runLog) > 0 {
			runs = append(runs, c.Run)
			size += len(c.runLog)
			for _, a := range c.runArtifacts {
				arts[a] = true
			}
		}
	}
	if len(runs) == 0 {
		return runlog.Pending{}, false, nil
	}
	// One buffer serves every batch: the store writes it out and keeps
	// nothing of it.
	b := r.logsBuf[:0]
	if cap(b) < size {
		b = make([]byte, 0, size)
	}
	for _, c := range cs {
		b = append(b, c.runLog...)
		c.runLog, c.runArtifacts = nil, nil
	}
	r.logsBuf = b[:0]
	artifacts := make([]string, 0, len(arts))
	for a := range arts {
		artifacts = append(artifacts, a)
	}
	sort.Strings(artifacts)
	st, err := r.rl.Store()
	if err != nil {
		return runlog.Pending{}, false, err
	}
	// The logs were redacted as their events were written.
	id, err := st.Put(b)
	if err != nil {
		return runlog.Pending{}, false, err
	}
	return runlog.Pending{Type: EvRuns, Data: map[string]any{"runs": runs, "runs_artifact": id.String(), "artifacts": artifacts}}, true, nil
}

// caseEvent is the data of an eval.case event.
type caseEvent struct {
	Case    *CaseResult `json:"case"`
	Address string      `json:"address"`
}

// casesFrom reads the cases of eval.case events, checking each against
// its content address.
func casesFrom(evs []chain.Event) (map[Key]CaseResult, error) {
	out := map[Key]CaseResult{}
	for _, ev := range evs {
		if ev.Type != EvCase {
			continue
		}
		var d caseEvent
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.Case == nil {
			return nil, fmt.Errorf("event %d: not an eval.case record", ev.Seq)
		}
		c := *d.Case
		if _, err := c.seal(); err != nil {
			return nil, err
		}
		if c.Address != d.Address {
			return nil, fmt.Errorf("event %d: case %s/%s#%d does not match its address %s", ev.Seq, c.Question, c.Variant, c.Repeat, d.Address)
		}
		out[c.Key()] = c
	}
	return out, nil
}

// writeCasesJSON writes the canonical JSON array of cs, each case written
// again without its address, one case at a time (canonical bytes are not
// kept per case: on a large suite they would be a good part of the
// evaluation's memory, and writing one is cheap).
func writeCasesJSON(w io.Writer, cs []CaseResult) error {
	buf := make([]byte, 0, 1024)
	if _, err := w.Write([]byte{'['}); err != nil {
		return err
	}
	for i := range cs {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		c := cs[i]
		c.Address = ""
		var err error
		if buf, err = c.appendCanonical(buf); err != nil {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	_, err := w.Write([]byte{']'})
	return err
}

// finish writes the summary artifact and run.finished, and seals.
func (r *recorder) finish(res *Result) (string, error) {
	// Streamed into the store: the array of a large evaluation is never
	// held whole in memory.
	casesID, err := r.rl.PutArtifactWriter(func(w io.Writer) error { return writeCasesJSON(w, res.Cases) })
	if err != nil {
		return "", err
	}
	sum := map[string]any{"status": res.Status, "exit": res.Exit, "variants": res.Summary, "pairs": res.Pairs, "unrun": res.Unrun}
	b, err := canon.Marshal(sum)
	if err != nil {
		return "", err
	}
	id, err := r.rl.PutArtifact(b)
	if err != nil {
		return "", err
	}
	status := runlog.StatusSucceeded
	if res.Status != "complete" {
		status = runlog.StatusFailed
	}
	if _, err := r.rl.Append(chain.TypeRunFinished, "", map[string]any{"status": status, "exit": res.Exit, "cases": len(res.Cases), "summary_artifact": id.String(), "cases_artifact": casesID.String()}); err != nil {
		return "", err
	}
	_, h, err := r.rl.Seal(r.suite)
	if err != nil {
		return "", err
	}
	rec := r.rl.Record()
	rec.Status, rec.Finished, rec.Error = status, r.rl.Now(), ""
	if err := r.rl.WriteRecord(rec); err != nil {
		return "", err
	}
	return h.String(), nil
}

// stop records that an attempt ended with cases left unrun. The
// evaluation stays unsealed and resumable.
func (r *recorder) stop(unrun int, interrupted bool) error {
	reason := "the cost cap was reached"
	status := runlog.StatusFailed
	if interrupted {
		reason, status = "interrupted", runlog.StatusCancelled
	}
	if _, err := r.rl.Append(EvStopped, "", map[string]any{"unrun": unrun, "reason": reason}); err != nil {
		return err
	}
	rec := r.rl.Record()
	rec.Status = status
	rec.Error = fmt.Sprintf("%s with %d case(s) not run; continue with agentlab eval --resume", reason, unrun)
	rec.Finished = r.rl.Now()
	return r.rl.WriteRecord(rec)
}

func (r *recorder) close() {
	if !r.closed {
		r.closed = true
		r.rl.Close()
	}
}

// readFinished loads a finished evaluation's cases from its record, for
// --resume on an evaluation that already finished.
// changedSources names the sources whose content differs between the
// hashes recorded at the start (then) and now, "" when none does or
// nothing was recorded.
func changedSources(then, now map[string]string) string {
	if then == nil {
		return ""
	}
	var changed []string
	for name, h := range then {
		if now[name] != h {
			changed = append(changed, name)
		}
	}
	for name := range now {
		if _, ok := then[name]; !ok {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	return strings.Join(changed, ", ")
}

// ErrDataChanged says --resume found the data sources changed since the
// evaluation started.
var ErrDataChanged = errors.New("the data changed")

// ErrRecordDamaged says the record --resume found does not verify as it
// stands: it is shown or continued only once restored.
var ErrRecordDamaged = errors.New("does not verify")

func readFinished(dataDir, id string) (map[Key]CaseResult, string, error) {
	snap, err := runlog.OpenReadOnly(dataDir, id)
	if err != nil {
		return nil, "", err
	}
	if len(snap.Problems) > 0 {
		return nil, "", fmt.Errorf("evaluation %s does not verify: %s", id, snap.Problems[0])
	}
	end := chain.SealedPrefix(snap.Events)
	seal := snap.Record.Seal
	if seal == "" {
		// Killed between its run.finished and its seal: the seal is a
		// function of the log, so it is computed now, as it would have
		// been then.
		if seal, err = completeSeal(dataDir, id, snap.Events[end]); err != nil {
			return nil, "", err
		}
	}
	// What was sealed is shown only once it verifies as it stands: run.json
	// names the seal, but only the log and the artifacts prove it.
	dir := filepath.Join(runlog.RunsDir(dataDir), id)
	v, err := verify.Verify(dir, verify.Options{Expect: seal})
	if err != nil {
		return nil, "", fmt.Errorf("evaluation %s cannot be verified: %w", id, err)
	}
	if !v.OK {
		for _, c := range v.Checks {
			if !c.OK {
				return nil, "", fmt.Errorf("evaluation %s %w (%s: %s); run agentlab verify %s", id, ErrRecordDamaged, c.Name, c.Detail, dir)
			}
		}
		return nil, "", fmt.Errorf("evaluation %s %w; run agentlab verify %s", id, ErrRecordDamaged, dir)
	}
	out, err := casesFrom(snap.Events[:end+1])
	if err != nil {
		return nil, "", fmt.Errorf("evaluation %s: %w", id, err)
	}
	return out, seal, nil
}

// completeSeal seals a finished evaluation whose seal was never written
// and records it as finished, as recorder.finish would have.
func completeSeal(dataDir, id string, finished chain.Event) (string, error) {
	rl, err := runlog.Open(dataDir, id)
	if err != nil {
		return "", err
	}
	defer rl.Close()
	var cp checkpoint
	if err := rl.ReadCheckpoint(&cp); err != nil {
		return "", err
	}
	_, h, err := rl.Seal(cp.Suite)
	if err != nil {
		return "", fmt.Errorf("evaluation %s: %w", id, err)
	}
	var d struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(finished.Data, &d)
	rec := rl.Record()
	rec.Status, rec.Error = d.Status, ""
	if rec.Status == "" {
		rec.Status = runlog.StatusSucceeded
	}
	if rec.Finished == "" {
		rec.Finished = finished.Time
	}
	if err := rl.WriteRecord(rec); err != nil {
		return "", err
	}
	return h.String(), nil
}

func randomSuffix() (string, error) {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", b), nil
}

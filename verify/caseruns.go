package verify

import (
	"encoding/json"
	"fmt"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/hashid"
)

// Event types of an evaluation's record that checkCaseRuns reads (package
// eval writes them; verify imports no engine package).
const (
	evEvalRuns = "eval.runs"
	evEvalCase = "eval.case"
)

// recordedCase is what an eval.case event records of a case that the
// cases check compares with the case's log.
type recordedCase struct {
	Question  string `json:"question"`
	Variant   string `json:"variant"`
	Repeat    int64  `json:"repeat"`
	Run       string `json:"run"`
	Seal      string `json:"seal"`
	Status    string `json:"status"`
	Answer    string `json:"answer"`
	Pass      bool   `json:"pass"`
	Tier      string `json:"tier"`
	Traceable bool   `json:"traceable"`
}

// checkCaseRuns checks the cases an evaluation ran in memory, whose
// event logs its record stores (eval.runs events: the run ids and one
// artifact holding their logs one after another): every log is an intact
// chain of its run, named once; the seal recomputed from it is the seal
// its eval.case records, and its plan and every artifact its seal covers
// are ones the evaluation's seal covers (sealed; the artifacts check
// re-hashes those); and what the eval.case says the run did — its inputs
// and seed, its status, its answer — is what the log says (caseMatchesLog).
// The record holds as many cases as its run.finished counts. A record
// without such cases has no "cases" check.
//
// The case logs are read like events.jsonl: at most limit bytes in all
// (--max-bytes), maxCaseLogBytes per artifact, MaxEvents events.
func (v *verifier) checkCaseRuns(evs []chain.Event, getCapped func(hashid.ID, int64) ([]byte, error), sealed []string, limit int64) {
	get := func(id hashid.ID) ([]byte, error) { return getCapped(id, maxSuiteBytes) }
	end := chain.SealedPrefix(evs)
	if end < 0 {
		return // not sealed: the seal check fails it already
	}
	cases := map[string]recordedCase{}
	nCases := 0
	rc := newRecordCases()
	type batch struct {
		seq  int64
		runs []string
		id   string
	}
	var batches []batch
	for _, e := range evs[:end+1] {
		switch e.Type {
		case evEvalCase:
			nCases++
			var d struct {
				Address string          `json:"address"`
				Case    json.RawMessage `json:"case"`
			}
			var c recordedCase
			if json.Unmarshal(e.Data, &d) != nil || json.Unmarshal(d.Case, &c) != nil {
				v.fail(CheckCases, "event %d: not an eval.case record", e.Seq)
				continue
			}
			if msg := rc.add(c, d.Case, d.Address); msg != "" {
				v.fail(CheckCases, "event %d: %s", e.Seq, msg)
			}
			if c.Run != "" {
				cases[c.Run] = c
			}
		case evEvalRuns:
			var d struct {
				Runs     []string `json:"runs"`
				Artifact string   `json:"runs_artifact"`
			}
			if err := json.Unmarshal(e.Data, &d); err != nil || d.Artifact == "" {
				v.fail(CheckCases, "event %d: not an eval.runs record", e.Seq)
				continue
			}
			batches = append(batches, batch{e.Seq, d.Runs, d.Artifact})
		}
	}
	start := readEvalStart(evs)
	if len(batches) == 0 && !start.CaseLogs && len(v.failed[CheckCases]) == 0 {
		return
	}
	suite := readSuite(evs, get)
	var fin struct {
		Cases         *int   `json:"cases"`
		CasesArtifact string `json:"cases_artifact"`
	}
	if json.Unmarshal(evs[end].Data, &fin) == nil {
		if fin.Cases != nil && *fin.Cases != nCases {
			v.fail(CheckCases, "run.finished counts %d cases, the record holds %d", *fin.Cases, nCases)
		}
		for _, msg := range rc.finished(fin.CasesArtifact, get, suite, start) {
			v.fail(CheckCases, "%s", msg)
		}
	}
	n, events := 0, 0
	inSeal := map[string]bool{}
	for _, a := range sealed {
		inSeal[a] = true
	}
	covered := map[string]bool{}
	named := map[string]bool{}
batches:
	for _, b := range batches {
		id, err := hashid.Parse(b.id)
		if err != nil {
			v.fail(CheckCases, "event %d: runs_artifact %q is not an artifact id", b.seq, b.id)
			continue
		}
		raw, err := getCapped(id, min(limit, maxCaseLogBytes))
		if err != nil {
			v.fail(CheckCases, "event %d: the case logs %s cannot be read: %v", b.seq, short(b.id), err)
			break batches // over the byte cap, or the store is damaged: the artifacts check says which
		}
		limit -= int64(len(raw))
		logs, err := splitCaseLogs(b.id, raw)
		if err != nil {
			v.fail(CheckCases, "event %d: %v", b.seq, err)
			continue
		}
		if events += countEvents(logs); events > maxCaseEvents {
			v.fail(CheckCases, "the case logs hold over %d events, the limit", maxCaseEvents)
			break batches
		}
		if len(logs) != len(b.runs) {
			v.fail(CheckCases, "event %d: %s holds %d case logs, the record names %d runs", b.seq, short(b.id), len(logs), len(b.runs))
			continue
		}
		for i, run := range b.runs {
			n++
			if named[run] {
				v.fail(CheckCases, "run %s: its log is in the record twice", run)
				continue
			}
			named[run] = true
			if !validRunID(run) {
				v.fail(CheckCases, "run %q: not a run id", run)
				continue
			}
			c, ok := cases[run]
			if !ok {
				v.fail(CheckCases, "run %s: no eval.case records it", run)
				continue
			}
			arts, msg := checkCaseRun(run, logs[i], c.Seal)
			if msg == "" {
				msg = caseMatchesLog(c, logs[i], suite)
			}
			if msg != "" {
				v.fail(CheckCases, "run %s: %s", run, msg)
			}
			if plan := casePlan(logs[i]); plan != "" && !inSeal[plan] {
				v.fail(CheckCases, "run %s: its plan %s is not under the evaluation's seal", run, short(plan))
			}
			for _, a := range arts {
				if !inSeal[a] {
					v.fail(CheckCases, "run %s: its seal covers artifact %s, which the evaluation's seal does not", run, short(a))
				}
				covered[a] = true
			}
		}
	}
	if start.CaseLogs {
		for _, k := range rc.order {
			if c := rc.byKey[k]; c.Run != "" && !named[c.Run] {
				v.fail(CheckCases, "case %s: its run %s ran in memory, but its log is not in the record", k, c.Run)
			}
		}
	}
	v.done(CheckCases, fmt.Sprintf("%d case runs kept in the record: every chain intact, every seal the one its case records, their %d artifacts under the evaluation's seal, every case's inputs, status and answer those of its log", n, len(covered)))
}

// maxCaseLogBytes caps one artifact of case logs (a batch of cases).
const maxCaseLogBytes = 256 << 20

// maxCaseEvents caps the events of all case logs (a variable so that a
// test reaches it without ten million events).
var maxCaseEvents = MaxEvents

func countEvents(logs [][]chain.Event) int {
	n := 0
	for _, l := range logs {
		n += len(l)
	}
	return n
}

// splitCaseLogs parses an artifact of case event logs into one event list
// per run: a log starts at each event numbered 1.
func splitCaseLogs(name string, raw []byte) ([][]chain.Event, error) {
	evs, probs, torn, err := chain.ParseLog(name, raw)
	if err != nil {
		return nil, err
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("%s: %s", short(name), probs[0])
	}
	if torn != nil {
		return nil, fmt.Errorf("%s ends in an incomplete line", short(name))
	}
	var out [][]chain.Event
	for i, e := range evs {
		if e.Seq == 1 || i == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], e)
	}
	return out, nil
}

// casePlan is the plan a case's run.started names, "" when it names none.
func casePlan(evs []chain.Event) string {
	var d struct {
		Plan string `json:"plan"`
	}
	if len(evs) == 0 || evs[0].Type != chain.TypeRunStarted || json.Unmarshal(evs[0].Data, &d) != nil {
		return ""
	}
	return d.Plan
}

// checkCaseRun checks one case's log against its run id and the seal its
// case records ("" for a run that was not sealed), and says what is wrong
// ("" when nothing is), with the artifacts its seal covers.
func checkCaseRun(run string, evs []chain.Event, seal string) ([]string, string) {
	if ps := chain.VerifyChain(run, evs); len(ps) > 0 {
		return nil, "its event chain is broken: " + ps[0].String()
	}
	if seal == "" {
		if chain.SealedPrefix(evs) >= 0 {
			return nil, "the run finished, but its case records no seal"
		}
		return nil, ""
	}
	plan := casePlan(evs)
	if plan == "" {
		return nil, "its log does not start with run.started naming a plan"
	}
	s, err := computeSeal(run, plan, evs, true, 1) // the chain was just verified
	if err != nil {
		return nil, err.Error()
	}
	h, err := s.Hash()
	if err != nil {
		return nil, err.Error()
	}
	if h.String() != seal {
		return nil, fmt.Sprintf("its events seal to %s, its case records %s", short(h.String()), short(seal))
	}
	return s.Artifacts, ""
}

package evfixture

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/evidence/answer"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

// EvalID is the id of the fixture evaluation's record.
const EvalID = "eval-fixture"

// EvalCase is one case of the fixture evaluation as written: the run id,
// its whole log, the seal its eval.case records ("" for a run that did
// not finish), the artifacts kept beside it, and what the case says.
type EvalCase struct {
	Run       string
	Log       []byte
	Seal      string
	Artifacts []string
	// What its eval.case says besides: the question, status, answer and
	// tier ("" writes none), and whether it is traceable (nil: passed at
	// tier formal).
	Question, Status, Answer, Tier string
	Traceable                      *bool
}

// EvalOptions varies the fixture evaluation.
type EvalOptions struct {
	// Cases is how many cases it has (default 3); the last one fails
	// (its run never finishes) when Failed is set.
	Cases  int
	Failed bool
	// Forge changes the cases after they ran and before they are
	// recorded (an attacker who writes the record): the logs stored, the
	// run ids named, the seals recorded, the artifacts kept.
	Forge func(cs []EvalCase)
	// Runs, when set, replaces the eval.runs event's data.
	Runs func(data map[string]any)
	// CountCases, when set, is the number of cases run.finished counts.
	CountCases int
	// DropLast leaves the last case out of the record, counts included.
	DropLast bool
	// NoRuns leaves out the eval.runs event (no case log at all).
	NoRuns bool
	// BadAddress records the first case under an address that is not the
	// hash of its bytes; BadCase writes its eval.case data as a string.
	BadAddress, BadCase bool
	// CasesArtifact, when set, changes the cases artifact's bytes.
	CasesArtifact func([]byte) []byte
	// NoVariants leaves the variants out of run.started (as records
	// written before it named them); Unsealed leaves the record unfinished.
	NoVariants, Unsealed bool
	// Shard, "i/n", records the evaluation as that shard of the suite: its
	// cases are then those of the questions in it (Cases counts the
	// suite's questions).
	Shard string
	// Contract and FinishedTier give the first case's output a contract
	// with that verdict and its run.finished that tier; the case records
	// the worse of the two, traceable when that is formal.
	Contract, FinishedTier string
	// Seed is the variant's seed in the suite; SeedInLog records it in the
	// case logs too (as a run of the variant does).
	Seed      int64
	SeedInLog bool
}

// BuildEval writes an evaluation record whose cases ran in memory, as
// package eval writes one: run.started, one eval.runs event naming the
// artifact of the cases' logs, one eval.case per case, run.finished, the
// seal. The records is honest about whatever Forge and Runs changed: its
// own chain and seal verify.
func BuildEval(dataDir string, o EvalOptions) (*Run, error) {
	if o.Cases == 0 {
		o.Cases = 3
	}
	st, err := store.OpenFileStore(runlog.ArtifactsDir(dataDir))
	if err != nil {
		return nil, err
	}
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	plan, err := st.Put([]byte(`{"agentlab":1,"name":"fixture-flow"}`))
	if err != nil {
		return nil, err
	}
	snap, err := st.Put([]byte(`{"rows":[[1]]}`))
	if err != nil {
		return nil, err
	}
	cases := make([]EvalCase, o.Cases)
	for i := range cases {
		id := fmt.Sprintf("case%02d", i)
		rl, err := runlog.NewMemory(dataDir, filepath.Join(dataDir, "tmp"), id, runlog.Record{Plan: plan.String()})
		if err != nil {
			return nil, err
		}
		rl.PinClock(&t0)
		finished := !(o.Failed && i == len(cases)-1)
		seed := int64(0)
		if o.SeedInLog {
			seed = o.Seed
		}
		fin := map[string]any{"output": map[string]any{"answer": fmt.Sprintf("It is %d.", 100+i)}, "snapshot_artifact": snap.String()}
		tier := "none"
		if i == 0 && o.Contract != "" {
			fin["contract"] = map[string]any{"tier": o.Contract}
			tier = o.Contract
		}
		if i == 0 && o.FinishedTier != "" {
			tier = answer.WorseTier(strings.TrimPrefix(tier, "none"), o.FinishedTier)
		}
		for _, e := range []runlog.Pending{
			{Type: chain.TypeRunStarted, Data: map[string]any{"plan": plan.String(), "inputs": map[string]any{"q": i}, "seed": seed}},
			{Type: chain.TypeNodeStarted, Node: "a"},
			{Type: chain.TypeNodeFinished, Node: "a", Data: fin},
		} {
			if _, err := rl.Append(e.Type, e.Node, e.Data); err != nil {
				return nil, err
			}
		}
		c := EvalCase{Run: id, Artifacts: []string{plan.String()}, Question: fmt.Sprintf("q%d", i), Status: "failed", Tier: tier}
		if finished {
			done := map[string]any{"status": "succeeded", "outputs": map[string]any{"answer": fmt.Sprintf("It is %d.", 100+i)}}
			if i == 0 && o.FinishedTier != "" {
				done["tier"] = o.FinishedTier
			}
			if _, err := rl.Append(chain.TypeRunFinished, "", done); err != nil {
				return nil, err
			}
			s, h, err := rl.Seal(plan.String())
			if err != nil {
				return nil, err
			}
			c.Seal, c.Status, c.Answer = h.String(), "succeeded", fmt.Sprintf("It is %d.", 100+i)
			c.Artifacts = append(c.Artifacts, s.Artifacts...)
		} else if _, err := rl.Append("run.failed", "", map[string]any{"error": "boom"}); err != nil {
			return nil, err
		}
		c.Log = rl.Log()
		rl.Close()
		cases[i] = c
	}
	if o.Shard != "" {
		var i, n int
		fmt.Sscanf(o.Shard, "%d/%d", &i, &n)
		var kept []EvalCase
		for _, c := range cases {
			h := hashid.Sum([]byte(c.Question))
			if int(binary.BigEndian.Uint64(h[:8])%uint64(n))+1 == i {
				kept = append(kept, c)
			}
		}
		cases = kept
	}
	if o.Forge != nil {
		o.Forge(cases)
	}
	if o.DropLast {
		cases = cases[:len(cases)-1]
	}

	var logs []byte
	var runs, arts []string
	for _, c := range cases {
		logs = append(logs, c.Log...)
		runs = append(runs, c.Run)
		arts = append(arts, c.Artifacts...)
	}
	logsID, err := st.Put(logs)
	if err != nil {
		return nil, err
	}
	variant := map[string]any{"name": "default", "repeats": 1}
	if o.Seed != 0 {
		variant["seed"] = o.Seed
	}
	questions := make([]any, o.Cases)
	for i := range questions {
		questions[i] = map[string]any{"id": fmt.Sprintf("q%d", i), "inputs": map[string]any{"q": i}}
	}
	suiteJSON, err := canon.Marshal(map[string]any{"eval": 1, "name": "fixture", "variants": []any{variant}, "questions": questions})
	if err != nil {
		return nil, err
	}
	suite, err := st.Put(suiteJSON)
	if err != nil {
		return nil, err
	}
	rl, err := runlog.Create(dataDir, EvalID)
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	rl.PinClock(&t0)
	started := map[string]any{"kind": "eval", "plan": suite.String(), "suite": suite.String(), "suite_artifact": suite.String(),
		"flow_plan": plan.String(), "variants": []string{"default"}, "case_logs": true, "shard": o.Shard}
	if o.NoVariants {
		delete(started, "variants")
	}
	runsData := map[string]any{"runs": runs, "runs_artifact": logsID.String(), "artifacts": unique(arts)}
	if o.Runs != nil {
		o.Runs(runsData)
	}
	evs := []runlog.Pending{
		{Type: chain.TypeRunStarted, Data: started},
	}
	if !o.NoRuns {
		evs = append(evs, runlog.Pending{Type: "eval.runs", Data: runsData})
	}
	var caseBytes [][]byte
	for _, c := range cases {
		cs := map[string]any{"question": c.Question, "variant": "default", "repeat": 0, "run": c.Run, "status": c.Status, "answer": c.Answer,
			"pass": c.Status == "succeeded", "tier": cmp.Or(c.Tier, "none"), "traceable": c.Status == "succeeded" && c.Tier == "formal"}
		if c.Traceable != nil {
			cs["traceable"] = *c.Traceable
		}
		if c.Seal != "" {
			cs["seal"] = c.Seal
		}
		b, err := canon.Marshal(cs)
		if err != nil {
			return nil, err
		}
		addr := hashid.Sum(b).String()
		if o.BadAddress && len(caseBytes) == 0 {
			addr = hashid.Sum(append(b, ' ')).String()
		}
		var data any = map[string]any{"address": addr, "case": json.RawMessage(b)}
		if o.BadCase && len(caseBytes) == 0 {
			data = map[string]any{"address": addr, "case": string(b)}
		}
		evs = append(evs, runlog.Pending{Type: "eval.case", Node: c.Question, Data: data})
		caseBytes = append(caseBytes, b)
	}
	arr := append(append([]byte{'['}, bytes.Join(caseBytes, []byte{','})...), ']')
	if o.CasesArtifact != nil {
		arr = o.CasesArtifact(arr)
	}
	casesArt, err := st.Put(arr)
	if err != nil {
		return nil, err
	}
	count := len(cases)
	if o.CountCases != 0 {
		count = o.CountCases
	}
	if !o.Unsealed {
		evs = append(evs, runlog.Pending{Type: chain.TypeRunFinished, Data: map[string]any{"status": "succeeded", "cases": count, "cases_artifact": casesArt.String()}})
	}
	if _, err := rl.AppendBatch(evs); err != nil {
		return nil, err
	}
	rec := rl.Record()
	rec.Plan, rec.Status, rec.Kind, rec.Origin, rec.Created = suite.String(), runlog.StatusSucceeded, "eval", "eval", chainTime(t0)
	if err := rl.WriteRecord(rec); err != nil {
		return nil, err
	}
	var h hashid.ID
	if !o.Unsealed {
		if _, h, err = rl.Seal(suite.String()); err != nil {
			return nil, err
		}
	}
	return &Run{DataDir: dataDir, ID: EvalID, Dir: filepath.Join(runlog.RunsDir(dataDir), EvalID), Seal: h.String(), Plan: suite.String()}, nil
}

func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

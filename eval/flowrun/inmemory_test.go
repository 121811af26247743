package flowrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/eval"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
	"github.com/agentlab/agentlab/verify"
)

// inMemoryEval runs testdata/qa's suite with its cases in memory and
// returns the data dir and the result.
func inMemoryEval(t *testing.T) (string, *eval.Result) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "qa")
	s, p, h, l := suite.Load(filepath.Join(dir, "sales.eval.yml"), eval.CompileFlow)
	if s == nil {
		t.Fatal(l)
	}
	data := t.TempDir()
	epoch := time.Unix(1700000000, 0).UTC()
	r := &Runner{Plan: p, PlanHash: h, Flow: suite.FlowPath(s), SuiteDir: dir, DataDir: data, Epoch: &epoch, Workers: 2}
	defer r.Close()
	if err := r.Prepare(s.Variants); err != nil {
		t.Fatal(err)
	}
	o, err := eval.NewSourceOracle(context.Background(), p, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	res, err := eval.Evaluate(context.Background(), eval.Options{Suite: s, Plan: p, PlanHash: h, Runner: r, Oracle: o, DataDir: data, Parallel: 2, Epoch: &epoch})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exit != 0 || res.Seal == "" {
		t.Fatalf("exit %d, seal %q", res.Exit, res.Seal)
	}
	return data, res
}

// verifyChecks verifies a record and returns its checks by name.
func verifyChecks(t *testing.T, dir string) map[string]verify.Check {
	t.Helper()
	v, err := verify.Verify(dir, verify.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]verify.Check{}
	for _, c := range v.Checks {
		out[c.Name] = c
	}
	return out
}

// TestInMemoryCasesAreKeptUnderTheSeal: cases run in memory leave no run
// directory; each one's whole log is in the evaluation's record, under its
// seal, and verify re-checks every case's chain and seal.
func TestInMemoryCasesAreKeptUnderTheSeal(t *testing.T) {
	data, res := inMemoryEval(t)
	ents, err := os.ReadDir(runlog.RunsDir(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != res.Eval {
		t.Errorf("runs/ holds %d entries; only the evaluation's record belongs there", len(ents))
	}
	if _, err := os.Stat(filepath.Join(data, "tmp")); err == nil {
		t.Error("a case left its scratch directory behind")
	}
	checks := verifyChecks(t, filepath.Join(runlog.RunsDir(data), res.Eval))
	c, ok := checks[verify.CheckCases]
	if !ok || !c.OK || !strings.HasPrefix(c.Detail, "3 case runs kept in the record") {
		t.Errorf("cases check: %+v", c)
	}
	for name, c := range checks {
		if !c.OK {
			t.Errorf("check %s fails: %s", name, c.Detail)
		}
	}
	// Each case's seal is the seal of its own log: the same one a run of
	// the flow on disk computes over the same events.
	for _, cs := range res.Cases {
		if cs.Run == "" || !strings.HasPrefix(cs.Seal, "b3:") {
			t.Errorf("case %s: run %q seal %q", cs.Question, cs.Run, cs.Seal)
		}
	}
}

// TestForgedCaseLogIsCaught plays someone who can write the data dir and
// edits what a case answered inside the record's case logs, then stores the
// edited logs and re-chains and re-seals the evaluation's own record so that
// its events, seal and artifacts all check: the cases check still fails,
// because the case's chain and seal no longer hold.
func TestForgedCaseLogIsCaught(t *testing.T) {
	forge := []struct {
		name string
		edit func(t *testing.T, runs []string, logs [][]chain.Event) ([]string, [][]chain.Event)
		want string
	}{
		{"answer edited in place", func(t *testing.T, runs []string, logs [][]chain.Event) ([]string, [][]chain.Event) {
			e := &logs[0][len(logs[0])-1]
			e.Data = json.RawMessage(bytes.Replace(e.Data, []byte(`"answer":"`), []byte(`"answer":"999 `), 1))
			return runs, logs
		}, "its event chain is broken"},
		{"answer edited and the case re-chained", func(t *testing.T, runs []string, logs [][]chain.Event) ([]string, [][]chain.Event) {
			e := &logs[0][len(logs[0])-1]
			e.Data = json.RawMessage(bytes.Replace(e.Data, []byte(`"answer":"`), []byte(`"answer":"999 `), 1))
			logs[0] = rechain(t, runs[0], logs[0])
			return runs, logs
		}, "its events seal to"},
		{"a case's log left out", func(t *testing.T, runs []string, logs [][]chain.Event) ([]string, [][]chain.Event) {
			return runs, logs[1:]
		}, "holds 2 case logs, the record names 3 runs"},
		{"two runs' logs swapped", func(t *testing.T, runs []string, logs [][]chain.Event) ([]string, [][]chain.Event) {
			logs[0], logs[1] = logs[1], logs[0]
			return runs, logs
		}, "its event chain is broken"},
	}
	for _, f := range forge {
		t.Run(f.name, func(t *testing.T) {
			data, res := inMemoryEval(t)
			dir := filepath.Join(runlog.RunsDir(data), res.Eval)
			snap, err := runlog.OpenReadOnly(data, res.Eval)
			if err != nil {
				t.Fatal(err)
			}
			st, err := store.OpenFileStore(runlog.ArtifactsDir(data))
			if err != nil {
				t.Fatal(err)
			}
			evs := snap.Events
			found := false
			for i, e := range evs {
				if e.Type != eval.EvRuns {
					continue
				}
				found = true
				var d map[string]any
				if err := json.Unmarshal(e.Data, &d); err != nil {
					t.Fatal(err)
				}
				id, _ := hashid.Parse(d["runs_artifact"].(string))
				raw, err := st.Get(id)
				if err != nil {
					t.Fatal(err)
				}
				var runs []string
				for _, r := range d["runs"].([]any) {
					runs = append(runs, r.(string))
				}
				runs, logs := f.edit(t, runs, splitLogs(t, raw))
				var b []byte
				for _, l := range logs {
					for _, e := range l {
						b = append(e.AppendLine(b), '\n')
					}
				}
				nid, err := st.Put(b)
				if err != nil {
					t.Fatal(err)
				}
				d["runs_artifact"], d["runs"] = nid.String(), runs
				evs[i].Data, _ = json.Marshal(d)
			}
			if !found {
				t.Fatal("the record has no eval.runs event")
			}
			reseal(t, dir, res.Eval, rechain(t, res.Eval, evs))
			checks := verifyChecks(t, dir)
			for _, name := range []string{verify.CheckEvents, verify.CheckSeal, verify.CheckArtifacts} {
				if !checks[name].OK {
					t.Fatalf("the forger's re-sealed record fails %s (%s); the forgery is not the one meant", name, checks[name].Detail)
				}
			}
			c := checks[verify.CheckCases]
			if c.OK || !strings.Contains(c.Detail, f.want) {
				t.Errorf("cases check: ok=%v %q, want a failure saying %q", c.OK, c.Detail, f.want)
			}
		})
	}
}

func splitLogs(t *testing.T, raw []byte) [][]chain.Event {
	t.Helper()
	evs, probs, _, err := chain.ParseLog("logs", raw)
	if err != nil || len(probs) > 0 {
		t.Fatalf("case logs: %v %v", err, probs)
	}
	var out [][]chain.Event
	for _, e := range evs {
		if e.Seq == 1 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], e)
	}
	return out
}

// rechain rebuilds a chain over the events' content, as a forger with the
// run id would.
func rechain(t *testing.T, run string, evs []chain.Event) []chain.Event {
	t.Helper()
	out := make([]chain.Event, 0, len(evs))
	var prev *chain.Event
	for i, e := range evs {
		tm, err := time.Parse(chain.TimeLayout, e.Time)
		if err != nil {
			t.Fatal(err)
		}
		ne, err := chain.NewEvent(prev, run, int64(i+1), tm, e.Type, e.Node, json.RawMessage(e.Data))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ne)
		prev = &out[len(out)-1]
	}
	return out
}

// reseal writes evs as the record's log and seals it again in run.json.
func reseal(t *testing.T, dir, run string, evs []chain.Event) {
	t.Helper()
	var b []byte
	for _, e := range evs {
		b = append(e.AppendLine(b), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, runlog.EventsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	rb, err := os.ReadFile(filepath.Join(dir, runlog.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec runlog.Record
	if err := json.Unmarshal(rb, &rec); err != nil {
		t.Fatal(err)
	}
	s, err := chain.ComputeSeal(run, rec.Plan, evs)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Hash()
	if err != nil {
		t.Fatal(err)
	}
	rec.Seal, rec.SealData = h.String(), &s
	out, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(dir, runlog.RecordFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

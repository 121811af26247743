package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/compile"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/runlog"
)

func compileFlow(t *testing.T, path string) (*plan.Plan, hashid.ID) {
	t.Helper()
	p, list := compile.CompileFile(path, compile.Options{})
	if p == nil || list.HasErrors() {
		t.Fatalf("compile %s: %v", path, list)
	}
	h, err := p.Hash()
	if err != nil {
		t.Fatal(err)
	}
	return p, h
}

var epoch = time.Unix(1700000000, 0).UTC()

// TestDeterministicRuns runs the same parallel flow in two data dirs under
// a fixed clock: the event logs must be byte-identical and the seals equal.
func TestDeterministicRuns(t *testing.T) {
	p, h := compileFlow(t, "testdata/review.yml")
	var logs [][]byte
	var seals []string
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		out, err := Start(context.Background(), Options{
			DataDir: dir, Plan: p, PlanHash: h, Source: "testdata/review.yml", Seed: 3,
			Parallel: 4, Epoch: &epoch, Actor: "user" + string(rune('a'+i)),
		})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != engine.StatusSucceeded || out.Seal == "" {
			t.Fatalf("run %d: %s %s", i, out.Status, out.Error)
		}
		b, err := os.ReadFile(filepath.Join(dir, "runs", out.RunID, "events.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, b)
		seals = append(seals, out.Seal)
	}
	if !bytes.Equal(logs[0], logs[1]) {
		t.Errorf("events.jsonl differ:\n%s\n---\n%s", logs[0], logs[1])
	}
	if seals[0] != seals[1] {
		t.Errorf("seals differ: %s %s", seals[0], seals[1])
	}
}

// TestResumeAfterCancel interrupts a run, resumes it and compares the
// outputs with an uninterrupted run; a second resume changes nothing.
func TestResumeAfterCancel(t *testing.T) {
	p, h := compileFlow(t, "testdata/review.yml")
	ref, err := Start(context.Background(), Options{DataDir: t.TempDir(), Plan: p, PlanHash: h, Source: "testdata/review.yml", Epoch: &epoch})
	if err != nil || ref.Status != engine.StatusSucceeded {
		t.Fatalf("%v %v", ref, err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var finished atomic.Int32 // Observe is called from several goroutines
	out, err := Start(ctx, Options{DataDir: dir, Plan: p, PlanHash: h, Source: "testdata/review.yml", Epoch: &epoch,
		Observe: func(u engine.Update) {
			if u.State == engine.StateFinished && finished.Add(1) == 3 {
				cancel()
			}
		}, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != engine.StatusCancelled {
		t.Fatalf("status %s", out.Status)
	}
	res, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: out.RunID, Epoch: &epoch})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != engine.StatusSucceeded || !reflect.DeepEqual(res.Outputs, ref.Outputs) {
		t.Fatalf("resumed: %s %v, want %v", res.Status, res.Outputs, ref.Outputs)
	}
	restored := 0
	for _, n := range res.Nodes {
		if n.Cached {
			restored++
		}
	}
	if restored < 3 {
		t.Errorf("only %d nodes restored", restored)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "runs", out.RunID, "events.jsonl"))
	again, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: out.RunID})
	if err != nil || !again.Finished || again.Seal != res.Seal {
		t.Fatalf("second resume: %+v %v", again, err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "runs", out.RunID, "events.jsonl"))
	if !bytes.Equal(before, after) {
		t.Errorf("resume of a finished run changed its events")
	}
	snap, err := runlog.OpenReadOnly(dir, out.RunID)
	if err != nil || len(snap.Problems) > 0 {
		t.Errorf("chain problems: %v %v", snap.Problems, err)
	}
}

func TestResumeWithChangedPlan(t *testing.T) {
	p, h := compileFlow(t, "testdata/review.yml")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	out, err := Start(ctx, Options{DataDir: dir, Plan: p, PlanHash: h, Epoch: &epoch, Parallel: 1,
		Observe: func(u engine.Update) {
			if u.Node == "draft" && u.State == engine.StateFinished {
				cancel()
			}
		}})
	if err != nil || out.Status != engine.StatusCancelled {
		t.Fatalf("%v %v", out, err)
	}
	// Same topology, a changed prompt: allowed for an exploratory run.
	p2, _ := compileFlow(t, "testdata/review.yml")
	for i := range p2.Nodes {
		if p2.Nodes[i].ID == "merge" {
			p2.Nodes[i].Spec["prompt"] = "Merge it all, briefly."
		}
	}
	h2, _ := p2.Hash()
	// A different topology is refused.
	p3, _ := compileFlow(t, "testdata/review.yml")
	p3.Edges = p3.Edges[1:]
	h3, _ := p3.Hash()
	if _, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: out.RunID, Plan: p3, PlanHash: h3}); err == nil {
		t.Fatal("a changed topology was accepted")
	}
	res, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: out.RunID, Plan: p2, PlanHash: h2})
	if err != nil || res.Status != engine.StatusSucceeded {
		t.Fatalf("%+v %v", res, err)
	}
	if res.Plan != h2.String() {
		t.Errorf("plan %s, want the replacement %s", res.Plan, h2)
	}
	// The run is sealed under the replacement, which run.resumed names (the
	// verifier's rule: the last plan run.started or run.resumed names).
	snap, err := runlog.OpenReadOnly(dir, out.RunID)
	if err != nil || len(snap.Problems) > 0 {
		t.Fatalf("%v %v", snap.Problems, err)
	}
	if snap.Record.Plan != h2.String() || snap.Record.SealData == nil || snap.Record.SealData.Plan != h2.String() {
		t.Errorf("run.json plan %s, seal %+v; want %s", snap.Record.Plan, snap.Record.SealData, h2)
	}
	named := ""
	for _, e := range snap.Events {
		if e.Type == EvRunResumed {
			named = string(e.Data)
		}
	}
	if !strings.Contains(named, `"plan":"`+h2.String()+`"`) {
		t.Errorf("run.resumed %s does not name the replacement plan", named)
	}
}

func TestRunIDDerivedUnderEpoch(t *testing.T) {
	var h hashid.ID
	a, _ := RunID(&epoch, h, map[string]any{"q": "x"}, 1, "mock", "", KindExploratory)
	b, _ := RunID(&epoch, h, map[string]any{"q": "x"}, 1, "mock", "", KindExploratory)
	c, _ := RunID(&epoch, h, map[string]any{"q": "y"}, 1, "mock", "", KindExploratory)
	if a != b || a == c || len(a) != 16 {
		t.Errorf("%s %s %s", a, b, c)
	}
	d, _ := RunID(nil, h, nil, 0, "mock", "", KindExploratory)
	if err := runlog.CheckID(d); err != nil || len(d) != len("20060102T150405Z-abcdef") {
		t.Errorf("time-based id %q: %v", d, err)
	}
}

func TestFormalResumeKeepsItsPlan(t *testing.T) {
	p, h := compileFlow(t, "testdata/review.yml")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	out, err := Start(ctx, Options{DataDir: dir, Plan: p, PlanHash: h, Kind: KindFormal, Epoch: &epoch, Parallel: 1,
		Observe: func(u engine.Update) {
			if u.Node == "draft" && u.State == engine.StateFinished {
				cancel()
			}
		}})
	if err != nil || out.Status != engine.StatusCancelled {
		t.Fatalf("%v %v", out, err)
	}
	p2, _ := compileFlow(t, "testdata/review.yml")
	p2.Nodes[0].Spec["prompt"] = "changed"
	h2, _ := p2.Hash()
	_, err = Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: out.RunID, Plan: p2, PlanHash: h2})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "is formal") {
		t.Fatalf("err = %v", err)
	}
	res, err := Resume(context.Background(), ResumeOptions{DataDir: dir, RunID: out.RunID, Plan: p, PlanHash: h})
	if err != nil || res.Status != engine.StatusSucceeded || res.Kind != KindFormal {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestStartRefusesBadInputsAndTypes(t *testing.T) {
	p, h := compileFlow(t, "testdata/review.yml")
	dir := t.TempDir()
	_, err := Start(context.Background(), Options{DataDir: dir, Plan: p, PlanHash: h, Inputs: map[string]any{"nope": "x"}})
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v", err)
	}
	bad := *p
	bad.Nodes = append([]plan.Node{{ID: "t", Type: "teleport", Spec: map[string]any{}}}, p.Nodes...)
	if _, err := Start(context.Background(), Options{DataDir: dir, Plan: &bad, PlanHash: h}); err == nil || !strings.Contains(err.Error(), "not supported by this version yet") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
		t.Errorf("a refused run left a directory behind")
	}
}

// TestMissingSourceOfAPlan runs a compiled plan kept away from its flow:
// the data file is not found, the error says the path is relative to the
// plan file's directory (not the flow's), and the run is refused before
// it is created: no run is left behind, neither "running" nor "failed".
func TestMissingSourceOfAPlan(t *testing.T) {
	dir := t.TempDir()
	f := writeEvidenceFlow(t, dir, "0")
	p, h := compileFlow(t, f)
	plans := filepath.Join(dir, "plans")
	if err := os.MkdirAll(plans, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := p.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(plans, "ev.plan.json")
	if err := os.WriteFile(pf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	var id string
	_, err = Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: pf,
		Started: func(runID string) { id = runID }})
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a usage error", err)
	}
	for _, want := range []string{"E-SRC-OPEN", "relative to the plan file's directory (" + plans + ")"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Refused before the run exists: no run id, no run directory.
	if id != "" {
		t.Errorf("Started was called with %q; a refused run must not start", id)
	}
	if recs, err := runlog.List(data); err != nil || len(recs) != 0 {
		t.Errorf("runs after a refused start: %v %v, want none", recs, err)
	}
	// The flow itself (data next to it) names the flow's directory.
	if err := os.Remove(filepath.Join(dir, "sales.csv")); err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), Options{DataDir: data, Plan: p, PlanHash: h, Source: f})
	if err == nil || !strings.Contains(err.Error(), "relative to the flow file's directory") {
		t.Errorf("flow run: err = %v", err)
	}
}

// TestFinishedOutcomeReportPaths: resuming a finished run reports the
// report and bundle run.json records, but only while both files exist.
func TestFinishedOutcomeReportPaths(t *testing.T) {
	dir := t.TempDir()
	rep, bun := filepath.Join(dir, "report.html"), filepath.Join(dir, "bundle.html")
	rec := runlog.Record{ID: "r1", Status: engine.StatusSucceeded, Seal: "b3:x", Report: rep, Bundle: bun}
	evs := []chain.Event{{Seq: 1, Type: chain.TypeRunFinished, Data: json.RawMessage(`{"outputs":{"a":1}}`)}}
	out, err := finishedOutcome(rec, evs, "")
	if err != nil || out.Report != "" || out.Bundle != "" {
		t.Fatalf("missing files: %+v %v", out, err)
	}
	for _, f := range []string{rep, bun} {
		if err := os.WriteFile(f, []byte("<html>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err = finishedOutcome(rec, evs, "")
	if err != nil || out.Report != rep || out.Bundle != bun || !out.Finished {
		t.Fatalf("%+v %v", out, err)
	}
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// evalKillSuite writes a flow with a CSV source of n rows and a suite of
// n questions, each expecting the value of its row, and returns the
// suite's path.
func evalKillSuite(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	flow := `agentlab: 1
name: kill-eval
inputs:
  question: {type: string}
sources:
  sales: {kind: csv, path: sales.csv}
nodes:
  - id: answer
    type: llm
    prompt: "Question: {{ input.question }}"
    assign_to: answer
  - id: out
    type: output
    fields:
      answer: "{{ vars.answer }}"
edges:
  - answer -> out
`
	var csv, suite strings.Builder
	csv.WriteString("id,value\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&csv, "%d,%d\n", i, 5000+i)
	}
	suite.WriteString("eval: 1\nname: kill-eval\nflow: flow.yml\nquestions:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&suite, "  - id: q%d\n    inputs: {question: \"What is %d?\"}\n    expect: {sql: \"SELECT value FROM sales WHERE id = %d\"}\n", i, 5000+i, i)
	}
	for name, body := range map[string]string{"flow.yml": flow, "sales.csv": csv.String(), "k.eval.yml": suite.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "k.eval.yml")
}

// evalJSON is the part of eval's --format json result the kill test reads.
type evalJSON struct {
	Eval   string `json:"eval"`
	Status string `json:"status"`
	Seal   string `json:"seal"`
	Exit   int    `json:"exit"`
	Cases  []struct {
		Question string `json:"question"`
		Run      string `json:"run"`
		Seal     string `json:"seal"`
		Address  string `json:"address"`
		Pass     bool   `json:"pass"`
	} `json:"cases"`
}

func runEvalJSON(t *testing.T, exe string, env []string, args ...string) evalJSON {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var res evalJSON
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
		t.Fatalf("agentlab %s: %v (%v)\nstdout: %s\nstderr: %s", strings.Join(args, " "), jerr, err, out.String(), errb.String())
	}
	return res
}

// committedCases reads the eval.case events of an evaluation's log.
func committedCases(t *testing.T, data, id string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(data, "runs", id, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				Case struct {
					Question string `json:"question"`
					Run      string `json:"run"`
				} `json:"case"`
			} `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "eval.case" {
			out[ev.Data.Case.Question] = ev.Data.Case.Run
		}
	}
	return out
}

// inode identifies a run directory, to tell a run left alone from one
// removed and made again.
func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestEvalKilledMidwayResumesLikeAnUninterruptedEval kills `agentlab eval`
// with SIGKILL once its first batch of cases is committed (group commit:
// one flush per batch) and resumes it, with the cases run in memory (their
// logs in the evaluation's record) and with --run-dirs: no committed case
// runs again, the cases that were running or waiting for their batch run
// again under their own ids, every case (run id, run seal, content
// address) equals an uninterrupted evaluation's under SOURCE_DATE_EPOCH,
// and the sealed record verifies.
func TestEvalKilledMidwayResumesLikeAnUninterruptedEval(t *testing.T) {
	if testing.Short() {
		t.Skip("starts several evaluations of 250 questions")
	}
	for _, mode := range []struct {
		name  string
		extra []string
	}{{"in-memory", nil}, {"run-dirs", []string{"--run-dirs"}}} {
		t.Run(mode.name, func(t *testing.T) { evalKilledMidway(t, mode.extra) })
	}
}

func evalKilledMidway(t *testing.T, extra []string) {
	exe := agentlabExe(t)
	suite := evalKillSuite(t, 250)
	env := append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000", "CI=true")
	runDirs := len(extra) > 0
	args := func(a ...string) []string { return append(a, extra...) }

	refData := t.TempDir()
	ref := runEvalJSON(t, exe, env, args("eval", suite, "--data-dir", refData, "--format", "json", "--parallel", "2")...)
	if ref.Status != "complete" || ref.Seal == "" || ref.Exit != 0 || len(ref.Cases) != 250 {
		t.Fatalf("uninterrupted evaluation: status %s seal %q exit %d, %d cases", ref.Status, ref.Seal, ref.Exit, len(ref.Cases))
	}

	var data, id string
	var before map[string]string
	for attempt := 0; attempt < 5 && before == nil; attempt++ {
		data = t.TempDir()
		cmd := exec.Command(exe, args("eval", suite, "--data-dir", data, "--format", "json", "--parallel", "2")...)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		deadline := time.Now().Add(2 * time.Minute)
	poll:
		for time.Now().Before(deadline) {
			select {
			case <-exited:
				break poll
			case <-time.After(time.Millisecond):
			}
			ids, _ := filepath.Glob(filepath.Join(data, "runs", "eval-*"))
			if len(ids) != 1 {
				continue
			}
			id = filepath.Base(ids[0])
			b, _ := os.ReadFile(filepath.Join(ids[0], "events.jsonl"))
			if bytes.Contains(b, []byte(`"eval.case"`)) {
				cmd.Process.Signal(syscall.SIGKILL)
				<-exited
				if c := committedCases(t, data, id); len(c) < 250 {
					before = c
				}
				break poll
			}
		}
		cmd.Process.Kill()
		<-exited
	}
	if before == nil {
		t.Skip("the evaluation finished before a kill could land between its batches")
	}
	inodes := map[string]uint64{}
	if runDirs {
		for _, run := range before {
			inodes[run] = inode(t, filepath.Join(data, "runs", run))
		}
	}

	got := runEvalJSON(t, exe, env, args("eval", suite, "--data-dir", data, "--format", "json", "--parallel", "2", "--resume")...)
	if got.Status != "complete" || got.Exit != 0 {
		t.Fatalf("resumed evaluation: status %s exit %d", got.Status, got.Exit)
	}
	// The record is the same one (same id), sealed; its seal also covers
	// the eval.resumed event that says where the second attempt began, so
	// it is not the uninterrupted record's seal.
	if got.Eval != ref.Eval || got.Seal == "" {
		t.Errorf("resumed evaluation %s sealed %q; the uninterrupted one is %s", got.Eval, got.Seal, ref.Eval)
	}
	for i, c := range got.Cases {
		r := ref.Cases[i]
		if c.Question != r.Question || c.Run != r.Run || c.Seal != r.Seal || c.Address != r.Address {
			t.Errorf("case %d: %s run %s seal %s address %s; uninterrupted: %s run %s seal %s address %s",
				i, c.Question, c.Run, c.Seal, c.Address, r.Question, r.Run, r.Seal, r.Address)
		}
	}
	if runDirs {
		for q, run := range before {
			if inode(t, filepath.Join(data, "runs", run)) != inodes[run] {
				t.Errorf("committed case %s (run %s) ran again after the resume", q, run)
			}
		}
		// A case that was not committed was made again under its own id:
		// its run verifies like any other.
		for _, c := range got.Cases {
			if _, ok := before[c.Question]; ok {
				continue
			}
			v := exec.Command(exe, "verify", filepath.Join(data, "runs", c.Run))
			v.Env = env
			if out, err := v.CombinedOutput(); err != nil {
				t.Errorf("verify of re-run case %s (run %s) failed: %v\n%s", c.Question, c.Run, err, out)
			}
			break
		}
	} else {
		// Every case's log is in the record exactly once: a committed case
		// that ran again would be logged twice; no case has a directory.
		logged := loggedRuns(t, data, got.Eval)
		for _, c := range got.Cases {
			if logged[c.Run] != 1 {
				t.Errorf("case %s (run %s) is logged %d times in the record", c.Question, c.Run, logged[c.Run])
			}
			if _, err := os.Stat(filepath.Join(data, "runs", c.Run)); err == nil {
				t.Errorf("case %s has a run directory, though it ran in memory", c.Question)
			}
		}
	}
	v := exec.Command(exe, "verify", filepath.Join(data, "runs", got.Eval))
	v.Env = env
	out, err := v.CombinedOutput()
	if err != nil {
		t.Errorf("verify of the resumed evaluation failed: %v\n%s", err, out)
	}
	if !runDirs && !bytes.Contains(out, []byte("ok    cases      250 case runs kept in the record")) {
		t.Errorf("verify did not check the 250 case logs:\n%s", out)
	}
	t.Logf("killed with %d of 250 cases committed", len(before))
}

// loggedRuns counts how often each run is named by the eval.runs events of
// an evaluation's log (whose artifacts hold the logs of cases run in
// memory).
func loggedRuns(t *testing.T, data, id string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(data, "runs", id, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				Runs []string `json:"runs"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "eval.runs" {
			for _, r := range ev.Data.Runs {
				out[r]++
			}
		}
	}
	return out
}

// TestEvalTornBatchResumes plays a kill that cut a batch's append short:
// the batch's eval.runs line and a quarter of its eval.case lines reached
// the file, then half a line. --resume cuts the batch off (kept beside
// the log), runs its cases again, and the evaluation equals an
// uninterrupted one, every case's log in the record once.
func TestEvalTornBatchResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs evaluations of 250 questions")
	}
	exe := agentlabExe(t)
	suite := evalKillSuite(t, 250)
	env := append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000", "CI=true")
	ref := runEvalJSON(t, exe, env, "eval", suite, "--data-dir", t.TempDir(), "--format", "json")
	data := t.TempDir()
	first := runEvalJSON(t, exe, env, "eval", suite, "--data-dir", data, "--format", "json")
	if first.Seal != ref.Seal {
		t.Fatalf("two uninterrupted evaluations sealed %s and %s", first.Seal, ref.Seal)
	}
	path := filepath.Join(data, "runs", first.Eval, "events.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	var keep []byte
	runsSeen, cases := 0, 0
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"type":"eval.runs"`)) {
			runsSeen++
		}
		if runsSeen == 2 && bytes.Contains(l, []byte(`"type":"eval.case"`)) {
			if cases == 25 {
				keep = append(keep, l[:len(l)/2]...)
				break
			}
			cases++
		}
		keep = append(keep, l...)
	}
	if runsSeen != 2 || cases != 25 {
		t.Fatalf("the record has %d batches before the cut, %d cases in the second", runsSeen, cases)
	}
	if err := os.WriteFile(path, keep, 0o644); err != nil {
		t.Fatal(err)
	}
	// run.json as the kill left it: the evaluation running, not sealed (a
	// sealed record whose log was cut is refused, see
	// TestResumeOfADamagedRecord in eval).
	if err := evfixture.EditRecord(filepath.Join(data, "runs", first.Eval), func(rec map[string]any) {
		delete(rec, "seal")
		delete(rec, "seal_data")
		delete(rec, "finished")
		rec["status"] = "running"
	}); err != nil {
		t.Fatal(err)
	}
	got := runEvalJSON(t, exe, env, "eval", suite, "--data-dir", data, "--format", "json", "--resume")
	if got.Status != "complete" || got.Exit != 0 || len(got.Cases) != 250 {
		t.Fatalf("resumed: status %s exit %d, %d cases", got.Status, got.Exit, len(got.Cases))
	}
	for i, c := range got.Cases {
		if r := ref.Cases[i]; c.Run != r.Run || c.Seal != r.Seal || c.Address != r.Address {
			t.Errorf("case %d: run %s seal %s; uninterrupted: run %s seal %s", i, c.Run, c.Seal, r.Run, r.Seal)
		}
	}
	logged := loggedRuns(t, data, got.Eval)
	for _, c := range got.Cases {
		if logged[c.Run] != 1 {
			t.Errorf("case %s is logged %d times", c.Question, logged[c.Run])
		}
	}
	// Both the half line and the cut batch are kept beside the log.
	if torn, _ := filepath.Glob(filepath.Join(data, "runs", got.Eval, "events.jsonl.torn-*")); len(torn) != 2 {
		t.Errorf("the cut batch and the torn line are not kept beside the log: %v", torn)
	}
	v := exec.Command(exe, "verify", filepath.Join(data, "runs", got.Eval))
	v.Env = env
	if out, err := v.CombinedOutput(); err != nil {
		t.Errorf("verify of the resumed evaluation failed: %v\n%s", err, out)
	}
}

package verify

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestCaseRunsCheck: an evaluation whose cases ran in memory verifies with
// a "cases" check, and each way of forging its cases — by someone who then
// writes the evaluation's own record honestly, so that its events, seal and
// artifacts all pass — fails that check with the sentence that says what.
func TestCaseRunsCheck(t *testing.T) {
	other := hashid.Sum([]byte("another blob")).String()
	for _, tt := range []struct {
		name string
		o    evfixture.EvalOptions
		want string // "" passes
	}{
		{"honest", evfixture.EvalOptions{}, ""},
		{"honest with a case that failed", evfixture.EvalOptions{Failed: true}, ""},
		{"answer edited in a log", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[1].Log = bytes.Replace(cs[1].Log, []byte("It is 101."), []byte("It is 999."), 1)
		}}, "run case01: its event chain is broken"},
		{"a seal recorded for another log", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Seal = cs[1].Seal
		}}, "run case00: its events seal to"},
		{"a failed case given a seal", evfixture.EvalOptions{Failed: true, Forge: func(cs []evfixture.EvalCase) {
			cs[2].Seal = cs[0].Seal
		}}, "run case02: seal run case02: run has no run.finished event"},
		{"a finished case without its seal", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[2].Seal = ""
		}}, "run case02: the run finished, but its case records no seal"},
		{"logs swapped between two runs", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Log, cs[1].Log = cs[1].Log, cs[0].Log
		}}, "run case00: its event chain is broken"},
		{"a log left out", evfixture.EvalOptions{Runs: func(d map[string]any) {
			d["runs"] = append(d["runs"].([]string), "case99")
		}}, "holds 3 case logs, the record names 4 runs"},
		{"a log cut short", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[2].Log = cs[2].Log[:len(cs[2].Log)-10]
		}}, "ends in an incomplete line"},
		{"a garbage line in the logs", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[1].Log = append([]byte(`{"seq":"x"}`+"\n"), cs[1].Log...)
		}}, "Event.seq"},
		{"a log missing its first event", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Log = cs[0].Log[bytes.IndexByte(cs[0].Log, '\n')+1:]
		}}, "run case00: its event chain is broken"},
		{"a sealed artifact not under the evaluation's seal", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Artifacts = cs[0].Artifacts[:1] // the plan only
			cs[1].Artifacts = cs[1].Artifacts[:1]
			cs[2].Artifacts = cs[2].Artifacts[:1]
		}}, "its seal covers artifact"},
		{"the plan not under the evaluation's seal", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			for i := range cs {
				cs[i].Artifacts = cs[i].Artifacts[1:]
			}
		}}, "its plan"},
		{"runs_artifact not an id", evfixture.EvalOptions{Runs: func(d map[string]any) {
			d["runs_artifact"] = "not-an-id"
		}}, "is not an artifact id"},
		{"runs_artifact missing from the store", evfixture.EvalOptions{Runs: func(d map[string]any) {
			d["runs_artifact"] = other
		}}, "cannot be read"},
		{"an eval.runs event without its artifact", evfixture.EvalOptions{Runs: func(d map[string]any) {
			delete(d, "runs_artifact")
		}}, "not an eval.runs record"},
		{"a failing case's answer rewritten in its eval.case", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Answer = "It is 49."
		}}, `run case00: its case's answer "It is 49." is not the answer its log records`},
		{"a case said to fail though its run finished", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[2].Status = "failed"
		}}, "run case02: its case says status failed, its log ends in run.finished"},
		{"a failed run said to succeed", evfixture.EvalOptions{Failed: true, Forge: func(cs []evfixture.EvalCase) {
			cs[2].Status = "succeeded"
		}}, "run case02: its case says status succeeded, its log does not finish"},
		{"two questions swap their runs", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Question, cs[1].Question = cs[1].Question, cs[0].Question
		}}, `its log's input "q" is not the one question`},
		{"a case dropped from the record", evfixture.EvalOptions{CountCases: 4}, "run.finished counts 4 cases, the record holds 3"},
		{"a log in the record twice", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[1].Run, cs[1].Log, cs[1].Seal = cs[0].Run, cs[0].Log, cs[0].Seal
		}}, "run case00: its log is in the record twice"},
		{"a log no case records", evfixture.EvalOptions{Runs: func(d map[string]any) {
			d["runs"].([]string)[2] = "case99"
		}}, "run case99: no eval.case records it"},
		{"a case dropped with its log, the counts made to agree", evfixture.EvalOptions{DropLast: true},
			"1 case(s) of the evaluation are not in the record, though it finished"},
		{"a case's log taken out, the case kept", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[2].Log = nil
		}, Runs: func(d map[string]any) {
			d["runs"] = d["runs"].([]string)[:2]
		}}, "case q2/default/0: its run case02 ran in memory, but its log is not in the record"},
		{"every log taken out", evfixture.EvalOptions{NoRuns: true}, "its log is not in the record"},
		{"a run id that is a path", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Run = "../../etc/passwd"
		}}, `run "../../etc/passwd": not a run id`},
		{"a tier the log does not give", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[0].Tier = "formal"
		}}, "its case's tier formal is not its log's (none)"},
		{"honest, a contracted output degraded, a formal run", evfixture.EvalOptions{Contract: "degraded", FinishedTier: "formal"}, ""},
		{"honest, formal and traceable", evfixture.EvalOptions{Contract: "formal", FinishedTier: "formal"}, ""},
		{"honest, a run withheld", evfixture.EvalOptions{FinishedTier: "withheld"}, ""},
		{"a degraded case recorded formal", evfixture.EvalOptions{Contract: "degraded", FinishedTier: "formal", Forge: func(cs []evfixture.EvalCase) {
			cs[0].Tier = "formal"
		}}, "its case's tier formal is not its log's (degraded)"},
		{"a formal case that passed not called traceable", evfixture.EvalOptions{Contract: "formal", Forge: func(cs []evfixture.EvalCase) {
			f := false
			cs[0].Traceable = &f
		}}, "traceable means passed at tier formal"},
		{"a case called traceable at tier none", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			t := true
			cs[0].Traceable = &t
		}}, "traceable means passed at tier formal"},
		{"honest, a variant with a seed", evfixture.EvalOptions{Seed: 7, SeedInLog: true}, ""},
		{"logs of another seed", evfixture.EvalOptions{Seed: 7}, "its log's seed 0 is not variant default's seed plus repeat 0"},
		{"a case doubled", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[1] = cs[0]
		}}, "case q0/default/0 is in the record twice"},
		{"a case under another address", evfixture.EvalOptions{BadAddress: true}, "case q0/default/0: its bytes hash to"},
		{"an eval.case that is no case", evfixture.EvalOptions{BadCase: true}, "not an eval.case record"},
		{"a cases artifact that is not the recorded cases", evfixture.EvalOptions{CasesArtifact: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"pass":false`), []byte(`"pass":true `), 1)
		}, Failed: true}, "the cases artifact is not the array of the recorded cases"},
		{"honest, without its variants named", evfixture.EvalOptions{NoVariants: true}, ""},
		{"a case of a question the suite does not have", evfixture.EvalOptions{Forge: func(cs []evfixture.EvalCase) {
			cs[1].Question = "nosuch"
		}}, `the suite has no question "nosuch"`},
		{"honest, a shard", evfixture.EvalOptions{Cases: 8, Shard: "2/3"}, ""},
		{"a shard holding another shard's case", evfixture.EvalOptions{Cases: 8, Shard: "2/3", Forge: func(cs []evfixture.EvalCase) {
			for i := 0; i < 8; i++ {
				if q := fmt.Sprintf("q%d", i); questionShard(q, 3) != 2 {
					cs[0].Question = q
					return
				}
			}
		}}, "is not one of the evaluation's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, cases := casesCheck(t, buildEval(t, tt.o).Dir, Options{Workers: 1})
			for _, c := range res.Checks {
				if c.Name != CheckCases && !c.OK && c.Name != CheckArtifacts && !(c.Name == CheckSeal && strings.Contains(c.Detail, "is missing")) {
					t.Errorf("check %s fails: %s (the forger's record should pass it)", c.Name, c.Detail)
				}
			}
			if cases == nil {
				t.Fatal("no cases check")
			}
			switch {
			case tt.want == "" && (!cases.OK || !res.OK):
				t.Errorf("honest record: cases %v %q, ok %v", cases.OK, cases.Detail, res.OK)
			case tt.want == "" && !strings.HasPrefix(cases.Detail, fmt.Sprintf("%d case runs kept in the record", max(tt.o.Cases, 3))) && tt.o.Shard == "":
				t.Errorf("cases detail %q", cases.Detail)
			case tt.want != "" && (cases.OK || res.OK || !strings.Contains(cases.Detail, tt.want)):
				t.Errorf("cases ok=%v %q, want a failure saying %q", cases.OK, cases.Detail, tt.want)
			}
		})
	}
}

// TestNoCaseRunsNoCheck: a run, or an evaluation whose cases have run
// directories, has no "cases" check.
func TestNoCaseRunsNoCheck(t *testing.T) {
	r, err := evfixture.Build(t.TempDir(), evfixture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, c := casesCheck(t, r.Dir, Options{Workers: 1}); c != nil {
		t.Errorf("a plain run has a cases check: %+v", c)
	}
}

// buildEval builds the fixture evaluation.
func buildEval(t *testing.T, o evfixture.EvalOptions) *evfixture.Run {
	t.Helper()
	r, err := evfixture.BuildEval(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// casesCheck verifies dir and returns the result with its cases check
// (nil when it has none).
func casesCheck(t *testing.T, dir string, opt Options) (*Result, *Check) {
	t.Helper()
	res, err := Verify(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Checks {
		if res.Checks[i].Name == CheckCases {
			return res, &res.Checks[i]
		}
	}
	return res, nil
}

// TestCaseLogsAreCapped: the case logs are read within --max-bytes, like
// events.jsonl: over it, the cases check fails saying so instead of
// reading the whole artifact.
func TestCaseLogsAreCapped(t *testing.T) {
	r := buildEval(t, evfixture.EvalOptions{Cases: 40})
	fi, err := os.Stat(filepath.Join(r.Dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_, c := casesCheck(t, r.Dir, Options{Workers: 1, MaxBytes: fi.Size() + 1024})
	if c == nil {
		t.Fatal("no cases check")
	}
	if c.OK || !strings.Contains(c.Detail, "cannot be read") {
		t.Errorf("cases check over the cap: %+v", c)
	}
}

// TestCaseLogsEventCap: the case logs' events are counted against the cap.
func TestCaseLogsEventCap(t *testing.T) {
	r := buildEval(t, evfixture.EvalOptions{})
	defer func(n int) { maxCaseEvents = n }(maxCaseEvents)
	for _, tt := range []struct {
		cap int
		ok  bool
	}{{12, true}, {11, false}} { // three logs of four events
		maxCaseEvents = tt.cap
		if _, c := casesCheck(t, r.Dir, Options{Workers: 1}); c != nil && (c.OK != tt.ok || !tt.ok && !strings.Contains(c.Detail, fmt.Sprintf("over %d events", tt.cap))) {
			t.Errorf("cases check with a cap of %d events: %+v", tt.cap, c)
		}
	}
}

// TestUnsealedEvalHasNoCasesCheck: an evaluation that did not finish is
// refused by the seal check; the cases check does not read it.
func TestUnsealedEvalHasNoCasesCheck(t *testing.T) {
	r := buildEval(t, evfixture.EvalOptions{Unsealed: true})
	res, c := casesCheck(t, r.Dir, Options{Workers: 1})
	if res.OK {
		t.Error("an unsealed evaluation verified")
	}
	if c != nil {
		t.Errorf("an unsealed evaluation has a cases check: %+v", c)
	}
}

// TestCaseCheckWithoutTheSuite: with the suite gone from the store, a case
// cannot be compared with its log; the cases check says so (and the
// artifacts check names the missing blob).
func TestCaseCheckWithoutTheSuite(t *testing.T) {
	r := buildEval(t, evfixture.EvalOptions{})
	id, err := hashid.Parse(r.Plan) // the record's plan is its suite
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(artifactPath(filepath.Join(r.DataDir, "artifacts"), id)); err != nil {
		t.Fatal(err)
	}
	_, c := casesCheck(t, r.Dir, Options{Workers: 1})
	if c == nil {
		t.Fatal("no cases check")
	}
	if c.OK || !strings.Contains(c.Detail, "the evaluation's suite cannot be read") {
		t.Errorf("cases check without the suite: %+v", c)
	}
}

func TestValidRunID(t *testing.T) {
	for id, want := range map[string]bool{
		"0123456789abcdef": true, "eval-x.1_Z": true, "a": true, strings.Repeat("a", 128): true,
		"": false, ".x": false, "_x": false, "-x": false, strings.Repeat("a", 129): false,
		"a/b": false, "a\nb": false, "a b": false, "é": false, "/ab": false,
	} {
		if got := validRunID(id); got != want {
			t.Errorf("validRunID(%q) = %v, want %v", id, got, want)
		}
	}
}

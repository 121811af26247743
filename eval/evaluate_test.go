package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/store"
)

const fakeSuite = `eval: 1
name: fake
flow: flow.yml
variants:
  - name: good
  - name: bad
    repeats: 2
    judge: true
questions:
  - id: a
    expect: {sql: "SELECT 1"}
    key_points: [says one]
  - id: b
    expect: {sql: "SELECT 2"}
  - id: c
    expect: {no_data: true}
  - id: d
    expect: {asks_back: true}
`

func parseFake(t testing.TB, src string) *suite.Suite {
	t.Helper()
	s, l := suite.Parse(filepath.Join(t.TempDir(), "fake.eval.yml"), []byte(src))
	if s == nil {
		t.Fatal(l)
	}
	return s
}

// fakeOracle expects the number after SELECT.
type fakeOracle struct{}

func (fakeOracle) Expected(_ context.Context, q *suite.Question) Expected {
	var v float64
	fmt.Sscanf(q.Expect.SQL, "SELECT %g", &v)
	return Expected{SQL: q.Expect.SQL, Values: []float64{v}}
}

// fakeRunner answers correctly under variant good and gets b wrong under bad.
type fakeRunner struct {
	calls atomic.Int64
	cost  float64
}

func (f *fakeRunner) Run(ctx context.Context, c Case) (Answer, error) {
	f.calls.Add(1)
	a := Answer{Status: StatusSucceeded, Tier: "formal", InputTokens: 10, OutputTokens: 5, CostUSD: f.cost, Run: "run-" + c.Question.ID}
	switch c.Question.ID {
	case "a":
		a.Text = "The answer is 1."
	case "b":
		a.Text = "The answer is 2."
		if c.Variant.Name == "bad" {
			a.Text = "The answer is 3."
		}
	case "c":
		a.Text = "There is no data."
	case "d":
		a.Text = "Which one?"
	}
	return a, nil
}

func fakeOptions(t testing.TB, r Runner) Options {
	s := parseFake(t, fakeSuite)
	p := &plan.Plan{Name: "fake", Nodes: []plan.Node{{ID: "x", Type: "llm"}}}
	return Options{Suite: s, Plan: p, PlanHash: hashid.Sum([]byte("fake-plan")), Runner: r, Oracle: fakeOracle{}}
}

func TestEvaluateInMemory(t *testing.T) {
	o := fakeOptions(t, &fakeRunner{})
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 12 || res.Status != "complete" || res.Unrun != 0 {
		t.Fatalf("cases %d status %s unrun %d", len(res.Cases), res.Status, res.Unrun)
	}
	var order []string
	for _, c := range res.Cases {
		order = append(order, fmt.Sprintf("%s/%s/%d", c.Question, c.Variant, c.Repeat))
		if c.Address == "" {
			t.Errorf("case %s has no address", c.Question)
		}
	}
	if got := strings.Join(order[:4], " "); got != "a/good/0 a/bad/0 a/bad/1 b/good/0" {
		t.Errorf("order %s", got)
	}
	if len(res.Summary) != 2 || res.Summary[0].Passed != 4 || res.Summary[1].Passed != 6 || res.Summary[1].Cases != 8 {
		t.Errorf("summary %+v", res.Summary)
	}
	if len(res.Pairs) != 1 || res.Pairs[0].OnlyA != 1 || res.Pairs[0].OnlyB != 0 {
		t.Errorf("pairs %+v", res.Pairs)
	}
	if res.Exit != 1 {
		t.Errorf("a failing question without a baseline exits 1, got %d", res.Exit)
	}
	// Key points: not judged without a judge.
	if kp := res.Cases[0].KeyPoints; len(kp) != 1 || kp[0].Verdict != VerdictNotJudged {
		t.Errorf("key points %+v", kp)
	}
	if res.Estimate.Cases != 12 || res.Estimate.CostUSD != 0 {
		t.Errorf("estimate %+v", res.Estimate)
	}
}

func TestEvaluateJudge(t *testing.T) {
	o := fakeOptions(t, &fakeRunner{})
	o.Judge = ProviderJudge{Provider: provider.NewMock(provider.Options{Seed: 1})}
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cases {
		if c.Question != "a" {
			continue
		}
		v := c.KeyPoints[0].Verdict
		if c.Variant == "good" && v != VerdictNotJudged {
			t.Errorf("variant without judge: %s", v)
		}
		if c.Variant == "bad" && (v == VerdictNotJudged || v == "") {
			t.Errorf("judged variant: %q", v)
		}
	}
	if res.Summary[1].KeyPointsJudged != 2 {
		t.Errorf("judged %d key points, want 2", res.Summary[1].KeyPointsJudged)
	}
	// Accuracy is unaffected by key points.
	if res.Summary[1].Passed != 6 {
		t.Errorf("passed %d", res.Summary[1].Passed)
	}
}

func TestEvaluateSealAndResume(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	stopAfter := RunnerFunc(func(c context.Context, cs Case) (Answer, error) {
		if n.Add(1) == 5 {
			cancel()
			<-c.Done()
			return Answer{Status: StatusCancelled, Error: "interrupted"}, nil
		}
		return (&fakeRunner{}).Run(c, cs)
	})
	o := fakeOptions(t, stopAfter)
	o.DataDir = dir
	res, err := Evaluate(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "incomplete" || len(res.Cases) != 4 || res.Unrun != 8 || res.Seal != "" || res.Exit != 1 {
		t.Fatalf("interrupted: status %s cases %d unrun %d seal %q exit %d", res.Status, len(res.Cases), res.Unrun, res.Seal, res.Exit)
	}
	first := res.Eval
	if snap, err := runlog.OpenReadOnly(dir, first); err != nil || snap.Record.Status != runlog.StatusCancelled || !strings.Contains(snap.Record.Error, "--resume") {
		t.Errorf("interrupted record: %+v, %v", snap.Record, err)
	}

	fr := &fakeRunner{}
	o.Runner = fr
	o.Resume = true
	res, err = Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Eval != first || fr.calls.Load() != 8 || len(res.Cases) != 12 || res.Seal == "" {
		t.Fatalf("resume: eval %s (want %s), %d calls (want 8), %d cases, seal %q", res.Eval, first, fr.calls.Load(), len(res.Cases), res.Seal)
	}
	snap, err := runlog.OpenReadOnly(dir, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Problems) > 0 {
		t.Fatalf("chain problems: %v", snap.Problems)
	}
	if snap.Record.Seal != res.Seal || snap.Record.Kind != KindEval {
		t.Errorf("record seal %s kind %s", snap.Record.Seal, snap.Record.Kind)
	}
	// Every case is in a sealed eval.case event, and all of them in the
	// cases artifact under the seal.
	sealed := map[string]bool{}
	for _, a := range snap.Record.SealData.Artifacts {
		sealed[a] = true
	}
	end := chain.SealedPrefix(snap.Events)
	inEvents, err := casesFrom(snap.Events[:end+1])
	if err != nil {
		t.Fatal(err)
	}
	if len(inEvents) != 12 {
		t.Errorf("%d cases in sealed events, want 12", len(inEvents))
	}
	for _, c := range res.Cases {
		if inEvents[c.Key()].Address != c.Address {
			t.Errorf("case %s/%s/%d: event address %s, result %s", c.Question, c.Variant, c.Repeat, inEvents[c.Key()].Address, c.Address)
		}
	}
	var fin struct {
		Cases string `json:"cases_artifact"`
	}
	if err := json.Unmarshal(snap.Events[end].Data, &fin); err != nil || !sealed[fin.Cases] {
		t.Fatalf("cases artifact %q not sealed (%v)", fin.Cases, err)
	}
	st, _ := openStore(dir)
	id, _ := hashid.Parse(fin.Cases)
	blob, err := st.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	// The artifact holds each case as it was addressed (without its address).
	bare := append([]CaseResult(nil), res.Cases...)
	for i := range bare {
		bare[i].Address = ""
	}
	want, _ := canon.Marshal(bare)
	if string(blob) != string(want) {
		t.Errorf("the cases artifact is not the result's cases:\n%s\n%s", blob, want)
	}

	// Resuming a finished evaluation shows it and runs nothing.
	fr2 := &fakeRunner{}
	o.Runner = fr2
	again, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if fr2.calls.Load() != 0 || again.Seal != res.Seal || len(again.Cases) != 12 {
		t.Errorf("finished resume ran %d cases, seal %s", fr2.calls.Load(), again.Seal)
	}
	a, _ := json.Marshal(again.Cases)
	b, _ := json.Marshal(res.Cases)
	if string(a) != string(b) {
		t.Error("finished resume must give the sealed cases back unchanged")
	}

	// Another configuration has nothing to resume.
	o.Variants = []string{"good"}
	if _, err := Evaluate(context.Background(), o); err != ErrResumeNothing {
		t.Errorf("err = %v, want ErrResumeNothing", err)
	}
}

func TestEvaluateFixedClockIsDeterministic(t *testing.T) {
	epoch := time.Unix(1700000000, 0).UTC()
	var seals []string
	for i := 0; i < 2; i++ {
		o := fakeOptions(t, &fakeRunner{})
		o.DataDir, o.Epoch = t.TempDir(), &epoch
		res, err := Evaluate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		seals = append(seals, res.Seal)
	}
	if seals[0] != seals[1] || seals[0] == "" {
		t.Errorf("seals differ under a fixed clock: %v", seals)
	}
}

// TestEvaluateSlowFirstCaseKeepsTheSeal plays a provider whose first
// answer is the slowest: with several workers the cases finish out of
// order, and the record (hence the seal) must still be the one a serial
// evaluation writes.
func TestEvaluateSlowFirstCaseKeepsTheSeal(t *testing.T) {
	epoch := time.Unix(1700000000, 0).UTC()
	slowFirst := RunnerFunc(func(ctx context.Context, c Case) (Answer, error) {
		if c.Question.ID == "a" && c.Variant.Name == "good" {
			time.Sleep(40 * time.Millisecond)
		}
		return (&fakeRunner{}).Run(ctx, c)
	})
	seal := func(par int) string {
		o := fakeOptions(t, slowFirst)
		o.DataDir, o.Epoch, o.Parallel = t.TempDir(), &epoch, par
		res, err := Evaluate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Seal == "" {
			t.Fatal("no seal")
		}
		return res.Seal
	}
	if serial, parallel := seal(1), seal(4); serial != parallel {
		t.Errorf("seal with --parallel 4 %s differs from the serial one %s", parallel, serial)
	}
}

func TestEvaluateCostCap(t *testing.T) {
	o := fakeOptions(t, &fakeRunner{cost: 1})
	o.MaxCostUSD = 2
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 2 || res.Unrun != 10 || res.Status != "incomplete" || res.Exit != 1 {
		t.Errorf("cost cap: %d cases, %d unrun, %s, exit %d", len(res.Cases), res.Unrun, res.Status, res.Exit)
	}
}

func TestEvaluateTimeout(t *testing.T) {
	slow := RunnerFunc(func(ctx context.Context, c Case) (Answer, error) {
		if c.Question.ID == "a" {
			<-ctx.Done()
			return Answer{Status: StatusCancelled, Error: ctx.Err().Error()}, nil
		}
		return (&fakeRunner{}).Run(ctx, c)
	})
	o := fakeOptions(t, slow)
	o.Timeout = 20 * time.Millisecond
	o.Variants = []string{"good"}
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cases[0]
	if c.Question != "a" || c.Pass || c.Status != StatusCancelled || !strings.Contains(c.Reason, "timeout") {
		t.Errorf("timed-out case: %+v", c)
	}
	if res.Unrun != 0 || len(res.Cases) != 4 {
		t.Errorf("a timeout is a failed case, not an unrun one: %d cases, %d unrun", len(res.Cases), res.Unrun)
	}
}

func TestEvaluateParallel(t *testing.T) {
	var mu sync.Mutex
	inflight, peak := 0, 0
	r := RunnerFunc(func(ctx context.Context, c Case) (Answer, error) {
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		inflight--
		mu.Unlock()
		return (&fakeRunner{}).Run(ctx, c)
	})
	o := fakeOptions(t, r)
	o.Parallel = 4
	o.DataDir = t.TempDir()
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if peak < 2 || peak > 4 {
		t.Errorf("peak concurrency %d, want 2..4", peak)
	}
	if len(res.Cases) != 12 || res.Seal == "" {
		t.Errorf("%d cases, seal %q", len(res.Cases), res.Seal)
	}
}

func TestRunnerErrorIsAFailedCase(t *testing.T) {
	o := fakeOptions(t, RunnerFunc(func(context.Context, Case) (Answer, error) {
		return Answer{}, fmt.Errorf("provider exploded")
	}))
	o.Variants = []string{"good"}
	res, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Cases[0]; c.Pass || c.Status != StatusError || !strings.Contains(c.Reason, "provider exploded") {
		t.Errorf("case %+v", c)
	}
}

func TestUnknownVariant(t *testing.T) {
	o := fakeOptions(t, &fakeRunner{})
	o.Variants = []string{"nope"}
	if _, err := Evaluate(context.Background(), o); err == nil {
		t.Error("an unknown variant must be an error")
	}
}

func openStore(dataDir string) (*store.FileStore, error) {
	return store.OpenFileStore(runlog.ArtifactsDir(dataDir))
}

// ctxOracle is fakeOracle that, like the SQL oracle, fails once its
// context is cancelled.
type ctxOracle struct{}

func (ctxOracle) Expected(ctx context.Context, q *suite.Question) Expected {
	if err := ctx.Err(); err != nil {
		return Expected{SQL: q.Expect.SQL, Err: err}
	}
	return fakeOracle{}.Expected(ctx, q)
}

// ctxJudge fails once its context is cancelled.
type ctxJudge struct{}

func (ctxJudge) Judge(ctx context.Context, _ Case, _, _ string) (string, provider.Usage, error) {
	if err := ctx.Err(); err != nil {
		return "", provider.Usage{}, err
	}
	return "supported", provider.Usage{}, nil
}

// TestInterruptAfterTheRun: an interruption that arrives after a run
// succeeded does not turn the question's expectation into a recorded
// failure; a judge call it cuts short leaves the case for --resume.
func TestInterruptAfterTheRun(t *testing.T) {
	for _, tt := range []struct {
		name    string
		stopAt  string // question whose (first) run sees the interruption
		variant string
		want    int // cases recorded
	}{
		{"expectation", "b", "good", 4}, // a/good, a/bad×2, b/good
		{"judge", "a", "bad", 1},        // a/good only: a/bad's key point was cut short
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runner := RunnerFunc(func(c context.Context, cs Case) (Answer, error) {
				a, err := (&fakeRunner{}).Run(c, cs)
				if cs.Question.ID == tt.stopAt && cs.Variant.Name == tt.variant && cs.Repeat == 0 {
					cancel() // the run itself finished
				}
				return a, err
			})
			o := fakeOptions(t, runner)
			o.Oracle, o.Judge, o.DataDir = ctxOracle{}, ctxJudge{}, t.TempDir()
			res, err := Evaluate(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Cases) != tt.want || res.Status != "incomplete" {
				t.Fatalf("recorded %d cases (want %d), status %s", len(res.Cases), tt.want, res.Status)
			}
			for _, c := range res.Cases {
				if !c.Pass && c.Variant == "good" {
					t.Errorf("case %s/%s recorded as failed: %s", c.Question, c.Variant, c.Reason)
				}
				for _, kp := range c.KeyPoints {
					if c.Variant == "bad" && kp.Verdict == VerdictNotJudged {
						t.Errorf("case %s/%s recorded with a key point the interruption left unjudged", c.Question, c.Variant)
					}
				}
			}
		})
	}
}

// slowRunner is fakeRunner with one slow question.
type slowRunner struct {
	fakeRunner
	slow  string
	delay time.Duration
}

func (r *slowRunner) Run(ctx context.Context, c Case) (Answer, error) {
	if c.Question.ID == r.slow {
		time.Sleep(r.delay)
	}
	a, err := r.fakeRunner.Run(ctx, c)
	// a log of its own, as a case run in memory hands back: the record
	// keeps the logs of each batch as one artifact
	a.Log = []byte(`{"case":"` + c.Question.ID + "/" + c.Variant.Name + `"}` + "\n")
	return a, err
}

// TestSealDoesNotDependOnTiming: under a fixed clock the record, and so
// its seal, is the same whether or not a case is slower than a batch may
// wait; a batch then ends where its count says.
func TestSealDoesNotDependOnTiming(t *testing.T) {
	old := batchWait
	batchWait = 5 * time.Millisecond
	defer func() { batchWait = old }()
	epoch := time.Unix(1700000000, 0).UTC()
	seal := func(delay time.Duration) string {
		o := fakeOptions(t, &slowRunner{slow: "c", delay: delay})
		o.DataDir, o.Epoch, o.Parallel = t.TempDir(), &epoch, 1
		res, err := Evaluate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return res.Seal
	}
	fast, slow := seal(0), seal(60*time.Millisecond)
	if fast == "" || fast != slow {
		t.Fatalf("seal %s with every case fast, %s with one slow", fast, slow)
	}
}

// Package flowrun runs evaluation cases as real runs of the flow under
// test: in memory, in one run.Session per variant, each case's whole log
// handed back for the evaluation's record; or, with RunDirs, as a sealed
// run of its own in the data dir (run.Start), origin "eval". It is kept
// apart from package eval so that the harness (scoring, statistics,
// records) builds and is tested without the engine.
//
// Where it fits: docs/architecture.md#evaluation.
package flowrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/eval"
	"github.com/agentlab/agentlab/eval/suite"
	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/evidence/answer"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/runlog"
	"github.com/agentlab/agentlab/run/sources"
	"github.com/agentlab/agentlab/run/store"
)

// Runner runs the flow under test: every case is a real, sealed run
// (origin "eval"), in memory or in the data dir (RunDirs), whose events
// are then read for the SQL it issued, the metrics it computed and the
// issuance tier of its contracted output.
type Runner struct {
	Plan     *plan.Plan
	PlanHash hashid.ID
	// Flow is the flow file's path (its directory resolves the data
	// sources); SuiteDir resolves a variant's script:FILE.
	Flow     string
	SuiteDir string
	DataDir  string
	// Answer names the output field holding the answer ("" see AnswerText).
	Answer string
	Actor  string
	Epoch  *time.Time
	// Provider and Model, when set, override every variant's.
	Provider string
	Model    string
	// Sources, when set, shares the databases built from the flow's data
	// files between the cases (each built once per version of its file).
	Sources *sources.Cache
	// RunDirs makes every case a run of its own in the data dir (a run
	// directory, sealed, which agentlab verify, runs show and report
	// open). Otherwise a case runs in memory (run.Session) and its whole
	// event log travels in its Answer for the evaluation's record.
	RunDirs bool
	// Workers is how many cases run at once.
	Workers int

	plans    map[string]variantPlan // by preset name
	mu       sync.Mutex
	sessions map[sessionKey]*sessionOnce
}

// sessionKey is what a session fixes: the plan (by preset), the provider
// and the model.
type sessionKey struct{ preset, provider, model string }

type sessionOnce struct {
	once sync.Once
	s    *run.Session
	err  error
}

type variantPlan struct {
	p *plan.Plan
	h hashid.ID
}

// Prepare resolves the preset of every variant that names one: the
// variant then runs the flow's plan with that preset (a different plan
// hash, recorded in each run).
func (r *Runner) Prepare(vs []suite.Variant) error {
	r.plans = map[string]variantPlan{}
	for _, v := range vs {
		if v.Preset == "" || v.Preset == r.Plan.Preset.Name {
			continue
		}
		if _, ok := r.plans[v.Preset]; ok {
			continue
		}
		pr, ds := presets.Resolve(v.Preset, filepath.Dir(r.Flow))
		if ds.HasErrors() {
			return fmt.Errorf("variant %q: %s (%s)", v.Name, ds[0].Message, suite.CodeVariant)
		}
		cp := *r.Plan
		cp.Preset = pr
		h, err := cp.Hash()
		if err != nil {
			return err
		}
		r.plans[v.Preset] = variantPlan{&cp, h}
	}
	return nil
}

// provider returns the variant's provider with a script path made
// relative to the flow's directory, which the runs resolve it against: the
// spec enters every case's run.started and run id, so a suite moved or
// checked out elsewhere with its flow seals alike.
func (r *Runner) provider(v *suite.Variant) string {
	p := v.Provider
	base := r.SuiteDir
	if r.Provider != "" {
		p = r.Provider
		base = "" // a command-line script is relative to the working directory
	}
	return ScriptRelativeToFlow(p, base, r.Flow)
}

// ScriptRelativeToFlow rewrites a script:FILE provider spec, FILE given
// relative to base, as relative to the directory of flow (with forward
// slashes); any other spec, or a file on another volume, is left as it is.
func ScriptRelativeToFlow(spec, base, flow string) string {
	file, ok := strings.CutPrefix(spec, "script:")
	if !ok {
		return spec
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(base, file)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return spec
	}
	dir, err := filepath.Abs(filepath.Dir(flow))
	if err != nil {
		return "script:" + abs
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return "script:" + abs
	}
	return "script:" + filepath.ToSlash(rel)
}

// Run implements eval.Runner.
func (r *Runner) Run(ctx context.Context, c eval.Case) (eval.Answer, error) {
	p, h := r.Plan, r.PlanHash
	if vp, ok := r.plans[c.Variant.Preset]; ok {
		p, h = vp.p, vp.h
	}
	model := c.Variant.Model
	if r.Model != "" {
		model = r.Model
	}
	if !r.RunDirs {
		return r.runInMemory(ctx, c, p, h, model)
	}
	opts := run.Options{
		DataDir: r.DataDir, Plan: p, PlanHash: h, Source: r.Flow, Kind: run.KindExploratory,
		Inputs: c.Question.Inputs, Provider: r.provider(c.Variant), Model: model,
		Seed: c.Variant.Seed + int64(c.Repeat), Actor: r.Actor, Origin: eval.KindEval, Epoch: r.Epoch,
		Parallel: 1, Case: caseName(c), Question: c.Question.ID, SourceCache: r.Sources,
		Replace: c.Resumed, NoExport: true,
	}
	out, err := run.Start(ctx, opts)
	if err != nil && r.Epoch != nil && errors.Is(err, runlog.ErrExists) {
		// This very case (the same question, variant and repeat, plan,
		// inputs, seed and provider) was run before in this data dir under
		// a fixed clock, outside this evaluation's record: run again under
		// a fresh id and the real clock (docs/evals.md).
		opts.Epoch = nil
		out, err = run.Start(ctx, opts)
	}
	if err != nil {
		return eval.Answer{}, err
	}
	ans := r.answerOf(out, c)
	snap, err := runlog.OpenReadOnly(r.DataDir, out.RunID)
	if err != nil {
		return ans, nil // the answer stands; evidence is best effort (tier stays none)
	}
	readEvidence(r.DataDir, snap.Events, p, &ans)
	return ans, nil
}

// runInMemory runs the case in the session of its variant: no run
// directory, the case's event log handed back in the Answer.
func (r *Runner) runInMemory(ctx context.Context, c eval.Case, p *plan.Plan, h hashid.ID, model string) (eval.Answer, error) {
	prov := r.provider(c.Variant)
	key := sessionKey{c.Variant.Preset, prov, model}
	r.mu.Lock()
	if r.sessions == nil {
		r.sessions = map[sessionKey]*sessionOnce{}
	}
	so, ok := r.sessions[key]
	if !ok {
		so = &sessionOnce{}
		r.sessions[key] = so
	}
	r.mu.Unlock()
	so.once.Do(func() {
		so.s, so.err = run.NewSession(ctx, run.SessionOptions{
			DataDir: r.DataDir, Plan: p, PlanHash: h, Source: r.Flow, Kind: run.KindExploratory,
			Provider: prov, Model: model, Actor: r.Actor, Origin: eval.KindEval, Epoch: r.Epoch,
			Workers: r.Workers, SourceCache: r.Sources,
		})
	})
	if so.err != nil {
		return eval.Answer{}, so.err
	}
	out, err := so.s.Run(ctx, run.SessionRun{Inputs: c.Question.Inputs, Seed: c.Variant.Seed + int64(c.Repeat), Question: c.Question.ID, Case: caseName(c)})
	if err != nil {
		return eval.Answer{}, err
	}
	ans := r.answerOf(out.Outcome, c)
	ans.Log, ans.Artifacts = out.Log, out.Artifacts
	readEvidence(r.DataDir, out.Events, p, &ans)
	return ans, nil
}

// answerOf is what a case's run answered: status, ids, tokens and cost,
// the answer text and an explicit no_data.
func (r *Runner) answerOf(out *run.Outcome, c eval.Case) eval.Answer {
	ans := eval.Answer{Status: out.Status, Run: out.RunID, Seal: out.Seal, Error: out.Error}
	for _, n := range out.Nodes {
		ans.InputTokens += n.Usage.InputTokens
		ans.OutputTokens += n.Usage.OutputTokens
		ans.CostUSD += n.Usage.CostUSD
	}
	ans.Text = AnswerText(out.Outputs, r.Answer, c.Question.Inputs)
	if b, ok := out.Outputs["no_data"].(bool); ok {
		ans.NoData = b
	}
	return ans
}

// Close ends the sessions the in-memory cases ran in.
func (r *Runner) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, so := range r.sessions {
		if so.s != nil {
			so.s.Close()
		}
	}
	r.sessions = nil
}

// caseName is what tells apart the runs of one evaluation whose plan,
// inputs, seed and provider are the same (two questions asking the same
// thing, or repeats): it enters their derived run ids, so that under a
// fixed clock every case gets its own id, on every machine and whether the
// evaluation is sharded or not.
func caseName(c eval.Case) string {
	return c.Question.ID + "/" + c.Variant.Name + "/" + strconv.Itoa(c.Repeat)
}

// AnswerText picks the text numbers are read from (answer.Text).
func AnswerText(outputs map[string]any, field string, inputs map[string]any) string {
	return answer.Text(outputs, field, inputs)
}

// readEvidence reads from the run's events what the answer cannot say by
// itself (docs: evidence contract): the SQL of tool.called events, metric
// values of metrics nodes, and the issuance tier of the contracted output.
func readEvidence(dataDir string, events []chain.Event, p *plan.Plan, ans *eval.Answer) {
	// The card a metrics node computed is the one compile resolved
	// (card_resolved, after on_card_upgrade), not always the one it pins:
	// a question that pins NAME@N is scored against version N only.
	metricsNodes := map[string]string{}
	for i := range p.Nodes {
		if n := &p.Nodes[i]; n.Type == "metrics" {
			card := n.Str("card_resolved")
			if card == "" {
				card = n.Str("card")
			}
			metricsNodes[n.ID] = card
		}
	}
	for _, ev := range events {
		switch ev.Type {
		case "tool.called":
			var d struct {
				Args struct {
					SQL string `json:"sql"`
				} `json:"args"`
			}
			if json.Unmarshal(ev.Data, &d) == nil && d.Args.SQL != "" {
				ans.SQL = append(ans.SQL, d.Args.SQL)
			}
		case "node.finished":
			if _, metrics := metricsNodes[ev.Node]; !metrics && !bytes.Contains(ev.Data, []byte(`"contract"`)) {
				continue // nothing here for the answer (canonical JSON never escapes a key's letters)
			}
			var d struct {
				Output   map[string]any `json:"output"`
				Contract *struct {
					Tier string `json:"tier"`
				} `json:"contract"`
				Card *struct {
					Pinned string `json:"pinned"`
					Dual   bool   `json:"dual"`
				} `json:"card"`
				MetricsArtifact string `json:"metrics_artifact"`
			}
			if json.Unmarshal(ev.Data, &d) != nil {
				continue
			}
			if card, ok := metricsNodes[ev.Node]; ok {
				if ans.Metrics == nil {
					ans.Metrics = map[string]float64{}
				}
				for k, v := range d.Output {
					if f, ok := v.(float64); ok {
						ans.Metrics[k] = f
					}
				}
				if card != "" && !slices.Contains(ans.Cards, card) {
					ans.Cards = append(ans.Cards, card)
				}
				if d.Card != nil && d.Card.Dual && d.Card.Pinned != "" {
					readDual(dataDir, d.Card.Pinned, d.MetricsArtifact, ans)
				}
			}
			if d.Contract != nil && d.Contract.Tier != "" {
				ans.Tier = answer.WorseTier(ans.Tier, d.Contract.Tier)
			}
		case "run.finished":
			tier, ok := canon.LookupString(ev.Data, "tier") // the one field read of a large event
			if !ok {
				var d struct {
					Tier string `json:"tier"`
				}
				if json.Unmarshal(ev.Data, &d) == nil {
					tier = d.Tier
				}
			}
			if tier != "" {
				ans.Tier = answer.WorseTier(ans.Tier, tier)
			}
		}
	}
}

// readDual adds the pinned version's values a dual metrics node recorded
// (gmv@1 in its metric set) as that card's metrics, so that a question
// pinning the old version is scored against the old definition.
func readDual(dataDir, pinned, artifact string, ans *eval.Answer) {
	id, err := hashid.Parse(artifact)
	if err != nil {
		return
	}
	st, err := store.OpenFileStore(runlog.ArtifactsDir(dataDir))
	if err != nil {
		return
	}
	b, err := st.Get(id)
	if err != nil {
		return
	}
	var set evidence.MetricSet
	if json.Unmarshal(b, &set) != nil {
		return
	}
	_, ver, _ := strings.Cut(pinned, "@")
	for _, mv := range set.Metrics {
		name, v, ok := strings.Cut(mv.Name, "@")
		if !ok || v != ver || mv.Value == nil {
			continue
		}
		if ans.CardMetrics == nil {
			ans.CardMetrics = map[string]map[string]float64{}
		}
		if ans.CardMetrics[pinned] == nil {
			ans.CardMetrics[pinned] = map[string]float64{}
		}
		ans.CardMetrics[pinned][name] = *mv.Value
	}
	if !slices.Contains(ans.Cards, pinned) {
		ans.Cards = append(ans.Cards, pinned)
	}
}

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/sources"
	"github.com/agentlab/agentlab/run/tools"
)

// agentModel answers each model call with a function of the request.
type agentModel struct {
	mu   sync.Mutex
	reqs []ModelRequest
	fn   func(i int, req ModelRequest) ModelResponse
}

func (s *agentModel) Complete(_ context.Context, req ModelRequest, _ func(string)) (ModelResponse, error) {
	s.mu.Lock()
	i := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	r := s.fn(i, req)
	if r.Model == "" {
		r.Model = "agentModel"
	}
	return r, nil
}

func call(name, args string) ModelResponse {
	return ModelResponse{ToolCalls: []ToolCall{{Name: name, Args: json.RawMessage(args)}}, Usage: Usage{InputTokens: 10, OutputTokens: 5}}
}

func answer(text string) ModelResponse {
	return ModelResponse{Text: text, Usage: Usage{InputTokens: 10, OutputTokens: 5}}
}

// echoTool returns a result chosen by its arguments and counts its calls.
type echoTool struct {
	name   string
	effect tools.Effect
	mu     sync.Mutex
	calls  int
	result func(args map[string]any) string
}

func (e *echoTool) Info() tools.Info {
	return tools.Info{Name: e.name, Description: "test tool", Schema: map[string]any{"type": "object"}, Effect: e.effect}
}

func (e *echoTool) Call(_ context.Context, args json.RawMessage) (*tools.Result, error) {
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	var m map[string]any
	_ = json.Unmarshal(args, &m)
	return &tools.Result{Text: e.result(m)}, nil
}

func registry(t *testing.T, ts ...tools.Tool) *tools.Registry {
	t.Helper()
	r := tools.NewRegistry()
	for _, x := range ts {
		if err := r.Register(x); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// agentPlan is one agent node with the standard guardrails and an
// allow-everything permission rule; spec adds node fields.
func agentPlan(spec ...any) *plan.Plan {
	base := []any{"prompt", "Find out.", "tools", []any{"lookup"}, "max_steps", 20,
		"permissions", []any{map[string]any{"tool": "*", "action": "allow"}}}
	p := mkPlan([]plan.Node{nd("ag", "agent", append(base, spec...)...)}, nil)
	p.Preset = plan.Preset{Name: "test", Rows: []plan.PresetRow{
		{ID: "persona", Use: "persona", Config: map[string]any{"prefix": "You are careful."}},
		{ID: "guard.no_progress", Use: "guardrail", Config: map[string]any{"no_progress_steps": 3.0}},
		{ID: "compaction", Use: "compaction", Config: map[string]any{"compress_at": 0.6, "keep_recent": 1.0}},
	}}
	return p
}

func lookupTool(result func(map[string]any) string) *echoTool {
	return &echoTool{name: "lookup", effect: tools.Read, result: result}
}

func eventData(rec *memRecorder, typ string) []map[string]any {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []map[string]any
	for _, e := range rec.events {
		if e.Type == typ {
			var m map[string]any
			_ = json.Unmarshal(e.Data, &m)
			out = append(out, m)
		}
	}
	return out
}

func stopReason(t *testing.T, rec *memRecorder) (string, string) {
	t.Helper()
	st := eventData(rec, EvAgentStopped)
	if len(st) != 1 {
		t.Fatalf("agent.stopped events: %v", st)
	}
	return st[0]["reason"].(string), st[0]["sentence"].(string)
}

func TestAgentAnswersWithToolResult(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "the answer is 42" })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i == 0 {
			return call("lookup", `{"q": "x"}`)
		}
		return answer("It is 42.")
	}}
	res, rec := run(t, agentPlan("system", "Be brief."), nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	if got := m.reqs[0].System; got != "You are careful.\n\nBe brief." {
		t.Errorf("system = %q", got)
	}
	if len(m.reqs[0].Tools) != 1 || m.reqs[0].Tools[0].Name != "lookup" {
		t.Errorf("tools = %+v", m.reqs[0].Tools)
	}
	last := m.reqs[1].Messages
	if tm := last[len(last)-1]; tm.Role != "tool" || tm.Content != "the answer is 42" || tm.ToolCallID == "" {
		t.Errorf("tool message = %+v", tm)
	}
	for _, typ := range []string{EvAgentLimits, EvToolCalled, EvPermission, EvToolResult, EvAgentStopped} {
		if len(eventData(rec, typ)) == 0 {
			t.Errorf("no %s event", typ)
		}
	}
	if r, _ := stopReason(t, rec); r != StopAnswer {
		t.Errorf("reason = %s", r)
	}
}

func TestAgentRepeatedCallReusesResult(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "result for " + fmt.Sprint(m["q"]) })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i < 2 {
			return call("lookup", []string{`{"q": "a"}`, `{ "q":"a" }`}[i])
		}
		return answer("done")
	}}
	res, rec := run(t, agentPlan(), nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusSucceeded || tool.calls != 1 {
		t.Fatalf("status %s, tool ran %d times (want 1)", res.Status, tool.calls)
	}
	results := eventData(rec, EvToolResult)
	if len(results) != 2 || results[1]["repeat_of"] == nil {
		t.Fatalf("tool.result = %v", results)
	}
	msgs := m.reqs[2].Messages
	if c := msgs[len(msgs)-1].Content; !strings.Contains(c, "You already made this exact call") || !strings.Contains(c, "result for a") {
		t.Errorf("repeat reply = %q", c)
	}
}

func TestAgentNoProgressWrapsUp(t *testing.T) {
	tool := lookupTool(func(map[string]any) string { return "nothing new" })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if len(req.Tools) == 0 {
			return answer("I could not find more.")
		}
		return call("lookup", fmt.Sprintf(`{"q": "%d"}`, i))
	}}
	res, rec := run(t, agentPlan(), nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	// Step 1 is new information; steps 2-4 are not; step 5 has no tools.
	if len(m.reqs) != 5 || len(m.reqs[4].Tools) != 0 {
		t.Fatalf("calls = %d, last tools = %d", len(m.reqs), len(m.reqs[len(m.reqs)-1].Tools))
	}
	r, s := stopReason(t, rec)
	if r != StopNoProgress || !strings.Contains(s, "3 steps in a row brought no new information") {
		t.Errorf("stop = %s: %s", r, s)
	}
	if w := eventData(rec, EvAgentWarning); len(w) == 0 || w[0]["limit"] != "no_progress" {
		t.Errorf("no warning before the limit: %v", w)
	}
}

// A model that never stops calling tools spends its token budget: it is
// warned at 80%, the call that crosses the budget does not run (its call
// gets a "not run" result), and one last call without tools asks for the
// answer, which is the node's output — the node does not fail.
func TestAgentTokenBudget(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "fact " + fmt.Sprint(m["q"]) })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		r := call("lookup", fmt.Sprintf(`{"q": %d}`, i))
		r.Usage = Usage{InputTokens: 800, OutputTokens: 200}
		r.Text = "still looking"
		return r
	}}
	res, rec := run(t, agentPlan("budget", map[string]any{"tokens": 2500}), nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	r, s := stopReason(t, rec)
	if r != StopBudgetTokens || !strings.Contains(s, "reaching its token budget of 2500 (budget.tokens)") || len(m.reqs) != 4 {
		t.Errorf("stop = %s: %s after %d calls", r, s, len(m.reqs))
	}
	if tool.calls != 2 {
		t.Errorf("tool ran %d times; the call that crossed the budget must not run", tool.calls)
	}
	last := m.reqs[len(m.reqs)-1]
	if len(last.Tools) != 0 {
		t.Errorf("the last call offered %d tools", len(last.Tools))
	}
	notRun, told := false, false
	for _, msg := range last.Messages {
		notRun = notRun || (msg.Role == "tool" && msg.Content == "error: not run: the token budget is spent")
		told = told || strings.Contains(msg.Content, "Your budget is spent")
	}
	if !notRun || !told {
		t.Errorf("the last request does not answer the pending call or say why: %+v", last.Messages)
	}
	if out := finishedData(t, rec, "ag")["output"].(map[string]any); out["text"] != "still looking" {
		t.Errorf("output %v", out)
	}
	if w := eventData(rec, EvAgentWarning); len(w) != 1 || w[0]["limit"] != "budget_tokens" {
		t.Errorf("warnings = %v", w)
	}
}

func TestAgentCostBudget(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "fact " + fmt.Sprint(m["q"]) })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		r := call("lookup", fmt.Sprintf(`{"q": %d}`, i))
		r.Text, r.Usage = "thinking", Usage{InputTokens: 1, OutputTokens: 1, CostUSD: 0.4}
		return r
	}}
	res, rec := run(t, agentPlan("budget", map[string]any{"cost_usd": 1.0}), nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if r, _ := stopReason(t, rec); r != StopBudgetCost || len(m.reqs) != 4 || res.Status != StatusSucceeded {
		t.Errorf("stop = %s after %d calls (%s %v)", r, len(m.reqs), res.Status, res.Err)
	}
}

// A cost budget over a model without a price says once that it sees only
// priced calls, and the node's usage keeps cost_unknown.
func TestAgentCostUnknownWarns(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "fact " + fmt.Sprint(m["q"]) })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i == 3 {
			return answer("done")
		}
		r := call("lookup", fmt.Sprintf(`{"q": %d}`, i))
		r.Usage.CostUnknown = true
		return r
	}}
	res, rec := run(t, agentPlan("budget", map[string]any{"cost_usd": 1.0}), nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	w := eventData(rec, EvNodeWarning)
	if len(w) != 1 || w[0]["code"] != WarnCostUnknown || !strings.Contains(fmt.Sprint(w[0]["message"]), "counts only priced calls") {
		t.Errorf("warnings = %v", w)
	}
	fin := eventData(rec, EvNodeFinished)
	if len(fin) == 0 || !strings.Contains(fmt.Sprint(fin[0]["output"]), "cost_unknown:true") {
		t.Errorf("the agent's usage lost cost_unknown: %v", fin)
	}
}

func TestAgentContextCompressesThenWrapsUp(t *testing.T) {
	big := strings.Repeat("row of data ", 300) // ~900 tokens, cut to result_chars
	tool := lookupTool(func(m map[string]any) string { return fmt.Sprint(m["q"]) + big })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if len(req.Tools) == 0 {
			return answer("wrapping up")
		}
		return call("lookup", fmt.Sprintf(`{"q": "%d"}`, i))
	}}
	res, rec := run(t, agentPlan(), nil, withModel(m), withHost(Host{Tools: registry(t, tool), ContextWindow: 3000}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	comp := eventData(rec, EvAgentCompressed)
	if len(comp) == 0 {
		t.Fatal("no agent.compressed event")
	}
	results := eventData(rec, EvToolResult)
	if results[0]["cut_chars"] == nil {
		t.Errorf("a result larger than result_chars was not cut: %v", results[0])
	}
	found := false
	for _, req := range m.reqs {
		for _, msg := range req.Messages {
			if strings.HasPrefix(msg.Content, "[agentlab: compressed") {
				found = true
			}
			if strings.Contains(msg.Content, "characters were cut from the middle of this result") {
				found = found || true
			}
		}
	}
	if !found {
		t.Error("the model never saw a compressed result")
	}
	// With keep_recent results never compressed, the window fills and the agent wraps up.
	p := agentPlan()
	p.Preset.Rows[2].Config["keep_recent"] = 50.0
	m2 := &agentModel{fn: m.fn}
	_, rec2 := run(t, p, nil, withModel(m2), withHost(Host{Tools: registry(t, lookupTool(tool.result)), ContextWindow: 3000}))
	if r, s := stopReason(t, rec2); r != StopContext || !strings.Contains(s, "context window (wrap_up_at 85%)") {
		t.Errorf("stop = %s: %s", r, s)
	}
}

func TestTruncateResult(t *testing.T) {
	s := strings.Repeat("a", 600) + strings.Repeat("z", 400) + "END"
	got, cut := truncateResult(s, 100)
	if !cut || !strings.HasPrefix(got, strings.Repeat("a", 60)+"\n…[agentlab: 903 of 1003 characters were cut") || !strings.HasSuffix(got, strings.Repeat("z", 37)+"END") {
		t.Errorf("truncateResult = %q", got)
	}
	if got, cut := truncateResult("short", 100); cut || got != "short" {
		t.Errorf("a short result was changed: %q", got)
	}
}

func TestAgentMalformedToolCall(t *testing.T) {
	tool := lookupTool(func(map[string]any) string { return "ok" })
	bad := []string{`{not json`, `[1,2]`, `{"a":1} {"b":2}`}
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		switch {
		case i < len(bad):
			return call("lookup", bad[i])
		case i == len(bad):
			return call("nosuch", `{}`)
		}
		return answer("recovered")
	}}
	p := agentPlan()
	p.Preset.Rows[1].Config["no_progress_steps"] = 10.0
	res, rec := run(t, p, nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	results := eventData(rec, EvToolResult)
	if len(results) != 4 {
		t.Fatalf("tool.result = %v", results)
	}
	for _, r := range results {
		if r["malformed"] != true {
			t.Errorf("not marked malformed: %v", r)
		}
	}
	if tool.calls != 0 {
		t.Errorf("a malformed call ran the tool")
	}
	if c := m.reqs[1].Messages[2].Content; !strings.HasPrefix(c, "error: malformed tool call: the arguments are not valid JSON") {
		t.Errorf("fed back %q", c)
	}
	if c := m.reqs[4].Messages[len(m.reqs[4].Messages)-1].Content; !strings.Contains(c, `no tool named "nosuch" is offered; call one of: lookup`) {
		t.Errorf("fed back %q", c)
	}
}

func TestAgentStepBackstop(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "fact " + fmt.Sprint(m["q"]) })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if len(req.Tools) == 0 {
			return answer("best effort")
		}
		return call("lookup", fmt.Sprintf(`{"q": %d}`, i))
	}}
	res, rec := run(t, agentPlan("max_steps", 50), nil, withModel(m), withHost(Host{Tools: registry(t, tool), MaxAgentSteps: 4}))
	if res.Status != StatusSucceeded || len(m.reqs) != 4 || len(m.reqs[3].Tools) != 0 {
		t.Fatalf("%s, %d calls", res.Status, len(m.reqs))
	}
	if r, s := stopReason(t, rec); r != StopMaxSteps || !strings.Contains(s, "max_steps 4") {
		t.Errorf("stop = %s: %s", r, s)
	}
	if l := eventData(rec, EvAgentLimits); len(l) != 1 || l[0]["max_steps"] != 4.0 {
		t.Errorf("agent.limits = %v", l)
	}
	if w := eventData(rec, EvAgentWarning); len(w) == 0 || w[0]["limit"] != "max_steps" {
		t.Errorf("no warning before the backstop: %v", w)
	}

	// A resumed run keeps the limits recorded by the first attempt.
	prior, err := NewPrior([]RecordedEvent{{Type: EvAgentLimits, Node: "ag", Data: json.RawMessage(`{"max_steps":2,"context_window":128000,"wrap_up_at":0.85,"no_progress_steps":3,"repeat_call":"reuse_result","keep_recent":4,"result_chars":16000}`)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m2 := &agentModel{fn: m.fn}
	_, rec2 := run(t, agentPlan("max_steps", 50), nil, withModel(m2), withPrior(prior), withHost(Host{Tools: registry(t, lookupTool(tool.result))}))
	if r, _ := stopReason(t, rec2); r != StopMaxSteps || len(m2.reqs) != 2 {
		t.Errorf("resumed: stop %s after %d calls, want max_steps after 2", r, len(m2.reqs))
	}
}

func TestAgentWriteToolRefused(t *testing.T) {
	w := &echoTool{name: "send_mail", effect: tools.Write, result: func(map[string]any) string { return "sent" }}
	p := agentPlan("tools", []any{"send_mail"})
	rec := newRecorder()
	_, err := Run(context.Background(), Config{Plan: p, Recorder: rec, Model: newModel(echo), Host: Host{Tools: registry(t, w)}})
	if err == nil || !strings.Contains(err.Error(), `agent "ag" lists "send_mail" (effect: write); agents may only use read tools`) {
		t.Fatalf("err = %v", err)
	}
	if len(rec.events) != 0 || w.calls != 0 {
		t.Errorf("something ran: %v", rec.lines())
	}
}

func TestAgentPermissionRefusedWithoutTerminal(t *testing.T) {
	tool := lookupTool(func(map[string]any) string { return "secret" })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i == 0 {
			return call("lookup", `{}`)
		}
		return answer("I was not allowed to look.")
	}}
	p := agentPlan()
	p.Nodes[0].Spec["permissions"] = []any{map[string]any{"tool": "other", "action": "allow"}}
	res, rec := run(t, p, nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusSucceeded || tool.calls != 0 {
		t.Fatalf("%s, tool ran %d times", res.Status, tool.calls)
	}
	pd := eventData(rec, EvPermission)
	if len(pd) != 1 || pd[0]["allowed"] != false || !strings.Contains(pd[0]["sentence"].(string), `there is no terminal to ask`) ||
		!strings.Contains(pd[0]["sentence"].(string), `{tool: "lookup", action: allow}`) {
		t.Fatalf("permission.decided = %v", pd)
	}
	if c := m.reqs[1].Messages[2].Content; !strings.HasPrefix(c, "error: permission refused: ") {
		t.Errorf("fed back %q", c)
	}
	// A deny rule wins; --yes allows what would be asked.
	p.Nodes[0].Spec["permissions"] = []any{map[string]any{"tool": "look*", "action": "deny"}}
	_, rec = run(t, p, nil, withModel(&agentModel{fn: m.fn}), withHost(Host{Tools: registry(t, tool), Yes: true}))
	if pd := eventData(rec, EvPermission); pd[0]["allowed"] != false || pd[0]["rule"] != "node ag permissions rule 1" {
		t.Errorf("deny rule: %v", pd)
	}
	p.Nodes[0].Spec["permissions"] = []any{}
	_, rec = run(t, p, nil, withModel(&agentModel{fn: m.fn}), withHost(Host{Tools: registry(t, tool), Yes: true}))
	if pd := eventData(rec, EvPermission); pd[0]["allowed"] != true || pd[0]["by"] != "yes-flag" {
		t.Errorf("--yes: %v", pd)
	}
}

// fakeSources answers every query with one fixed snapshot.
type fakeSources struct{}

func (fakeSources) Call(_ context.Context, tool string, args map[string]any, _ int) (*evidence.Snapshot, error) {
	return &evidence.Snapshot{Tool: tool, Source: "sales", SQL: fmt.Sprint(args["sql"]), Columns: []string{"region", "gmv"},
		Types: []string{evidence.TypeText, evidence.TypeInteger}, Rows: [][]any{{"north", int64(120)}, {"south", int64(80)}}}, nil
}

func TestAgentCiteFields(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"north": map[string]any{"type": "number"}, "south": map[string]any{"type": "number"}, "west": map[string]any{"type": "number"}},
		"required": []any{"north", "south", "west"}}
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i == 0 {
			return call("db_query__sales", `{"sql": "SELECT region, gmv FROM sales"}`)
		}
		src := req.OutputSchema["properties"].(map[string]any)["north"].(map[string]any)["properties"].(map[string]any)["source"].(map[string]any)
		if src["enum"] == nil {
			t.Errorf("source has no enum of cells: %v", src)
		}
		return answer(`{"north": {"value": 130, "source": "Q1.r0.gmv"}, "south": {"value": 80, "source": "Q1.r1.gmv"}, "west": {"value": 5, "source": "Q7.r0.gmv"}}`)
	}}
	p := agentPlan("tools", []any{"db_query"}, "output_schema", schema, "cite_fields", true)
	res, rec := run(t, p, nil, withModel(m), func(c *Config) { c.Sources = describedFake{} })
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	fin := eventData(rec, EvNodeFinished)
	js := fin[0]["output"].(map[string]any)["json"].(map[string]any)
	if v := js["north"].(map[string]any)["value"]; v != 120.0 {
		t.Errorf("north = %v; the snapshot's 120 must win over the model's 130", v)
	}
	if v := js["west"].(map[string]any); v["value"] != nil {
		t.Errorf("west = %v; an unknown cell must give null", v)
	}
	warns := eventData(rec, EvNodeWarning)
	if len(warns) != 2 || !strings.Contains(fmt.Sprint(warns), "the snapshot's value is used") || !strings.Contains(fmt.Sprint(warns), "the run has no snapshot Q7") {
		t.Errorf("warnings = %v", warns)
	}
	if r := eventData(rec, EvToolResult); r[0]["snapshot"] != "Q1" || r[0]["snapshot_artifact"] == nil {
		t.Errorf("tool.result = %v", r)
	}
	if a := eventData(rec, EvEvidenceAdded); len(a) != 1 {
		t.Errorf("evidence.added = %v", a)
	}
}

// describedFake is fakeSources with tool descriptions.
type describedFake struct{ fakeSources }

func (describedFake) Tools() []sources.ToolInfo {
	return []sources.ToolInfo{{Name: "db_query__sales", Description: "sales", Schema: map[string]any{"type": "object"}}}
}

// A model that spends its budget on tool calls ends on a tool-less answer
// that is not what the flow needs; the validate node downstream fails, and
// its error names the agent and why it stopped, not only the schema.
func TestSchemaFailureAfterBudgetStopNamesTheAgent(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "fact " + fmt.Sprint(m["q"]) })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		r := call("lookup", fmt.Sprintf(`{"q": %d}`, i))
		r.Usage = Usage{InputTokens: 800, OutputTokens: 200}
		r.Text = "still looking"
		return r
	}}
	p := agentPlan("budget", map[string]any{"tokens": 2500})
	p.Nodes = append(p.Nodes, nd("check", "validate", "target", "ag",
		"schema", map[string]any{"type": "object", "required": []any{"total"}}))
	p.Edges = append(p.Edges, edges("ag -> check")...)
	res, _ := run(t, p, nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusFailed {
		t.Fatalf("status %s", res.Status)
	}
	msg := res.Err.Error()
	if !strings.Contains(msg, `agent "ag" stopped early (budget_tokens): the agent used 3000 tokens`) {
		t.Errorf("the error does not name the agent that stopped early:\n%s", msg)
	}
	// An agent that answered on its own is not blamed.
	m2 := &agentModel{fn: func(i int, req ModelRequest) ModelResponse { return answer("no total here") }}
	res, _ = run(t, p, nil, withModel(m2), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusFailed || strings.Contains(res.Err.Error(), "stopped early") {
		t.Errorf("%s %v", res.Status, res.Err)
	}
}

// The same model with an output_schema: its last, tool-less answer is not
// the JSON asked for, and the node's error says the agent had stopped
// early and why, not only that the JSON is wrong.
func TestAgentSchemaFailureAfterBudgetStopSaysWhy(t *testing.T) {
	tool := lookupTool(func(m map[string]any) string { return "fact " + fmt.Sprint(m["q"]) })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		r := call("lookup", fmt.Sprintf(`{"q": %d}`, i))
		r.Usage = Usage{InputTokens: 800, OutputTokens: 200}
		r.Text = "still looking"
		return r
	}}
	p := agentPlan("budget", map[string]any{"tokens": 2500},
		"output_schema", map[string]any{"type": "object", "required": []any{"total"}})
	res, _ := run(t, p, nil, withModel(m), withHost(Host{Tools: registry(t, tool)}))
	if res.Status != StatusFailed {
		t.Fatalf("status %s", res.Status)
	}
	if msg := res.Err.Error(); !strings.Contains(msg, "does not match output_schema") || !strings.Contains(msg, "the agent had stopped early (budget_tokens): the agent used") {
		t.Errorf("error: %s", msg)
	}
}

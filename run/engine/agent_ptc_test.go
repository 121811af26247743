package engine

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run/tools"
)

// ptcOn is a host chain that always says yes.
func ptcOn(title string, toolsets []string) sdk.Decision {
	return sdk.Decide(sdk.Config{Mode: sdk.ModeOn, RolloutPercent: 100}, "u", toolsets, title)
}

func runCodeCall(code string) ModelResponse {
	b, _ := json.Marshal(map[string]string{"code": code})
	return ModelResponse{ToolCalls: []ToolCall{{ID: "rc1", Name: "run_code", Args: b}}, Usage: Usage{InputTokens: 10, OutputTokens: 5}}
}

// TestAgentCodeMode runs a program that calls an allowed tool and a
// denied one: run_code replaces the native declarations, each sub-call
// is checked and recorded under rc1:ptc:<n>, and the denial reaches the
// program as a ToolCallError.
func TestAgentCodeMode(t *testing.T) {
	needInterpreter(t, "python3")
	lookup := lookupTool(func(m map[string]any) string { return `{"value": 42}` })
	secret := &echoTool{name: "secret", effect: tools.Read, result: func(map[string]any) string { return "classified" }}
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i == 0 {
			return runCodeCall(`
a = await lookup({"q": "x"})
try:
    await secret({})
    s = "ran"
except ToolCallError as e:
    s = e.message
return {"value": a["value"], "secret": s}`)
		}
		return answer("It is 42.")
	}}
	p := agentPlan("presentation", "ptc", "tools", []any{"lookup", "secret"}, "permissions", []any{
		map[string]any{"tool": "secret", "action": "deny"},
		map[string]any{"tool": "*", "action": "allow"},
	})
	res, rec := run(t, p, nil, withModel(m), withHost(Host{Tools: registry(t, lookup, secret), PTC: ptcOn, WorkDir: t.TempDir()}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	if tl := m.reqs[0].Tools; len(tl) != 1 || tl[0].Name != "run_code" || !strings.Contains(tl[0].Description, "async def lookup(") {
		t.Fatalf("tools offered = %+v", tl)
	}
	if pr := eventData(rec, EvAgentPresentation); len(pr) != 1 || pr[0]["mode"] != "ptc" {
		t.Errorf("presentation = %v", pr)
	}
	var ids []string
	for _, c := range eventData(rec, EvToolCalled) {
		ids = append(ids, c["call_id"].(string)+" "+c["tool"].(string))
	}
	if strings.Join(ids, ",") != "rc1 run_code,rc1:ptc:1 lookup,rc1:ptc:2 secret" {
		t.Errorf("tool.called = %q", ids)
	}
	if secret.calls != 0 || lookup.calls != 1 {
		t.Errorf("calls: secret %d lookup %d", secret.calls, lookup.calls)
	}
	results := eventData(rec, EvToolResult)
	last := results[len(results)-1]
	out, _ := json.Marshal(last["output"])
	if last["call_id"] != "rc1" || last["ok"] != true || !strings.Contains(string(out), `"secret":"permission refused: `) || !strings.Contains(string(out), `"value":42`) {
		t.Errorf("run_code result = %v", last)
	}
	if msg := m.reqs[1].Messages[len(m.reqs[1].Messages)-1]; !strings.HasPrefix(msg.Content, `{"ok":true,"output":{`) {
		t.Errorf("model was shown %q", msg.Content)
	}
}

// TestAgentCodeModeOff: without a chain, or when it says no, the agent
// keeps its native tools and the event says why.
func TestAgentCodeModeOff(t *testing.T) {
	for _, h := range []Host{{}, {PTC: func(string, []string) sdk.Decision { return sdk.Decide(sdk.Config{Mode: sdk.ModeOff}, "u", nil, "") }}} {
		m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse { return answer("done") }}
		h.Tools = registry(t, lookupTool(func(map[string]any) string { return "x" }))
		_, rec := run(t, agentPlan("presentation", "ptc"), nil, withModel(m), withHost(h))
		if tl := m.reqs[0].Tools; len(tl) != 1 || tl[0].Name != "lookup" {
			t.Errorf("tools = %+v", tl)
		}
		pr := eventData(rec, EvAgentPresentation)
		if len(pr) != 1 || pr[0]["mode"] != "native" || pr[0]["reason"] == "" {
			t.Errorf("presentation = %v", pr)
		}
	}
	// A native agent records its presentation too, without asking the
	// chain (which would say yes here): the reason names the presentation.
	for _, tt := range []struct {
		spec []any
		why  string
	}{
		{nil, "the preset presents the tools natively"},
		{[]any{"presentation", "native"}, "the node asks for presentation native"},
	} {
		m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse { return answer("done") }}
		asked := false
		chain := func(title string, ts []string) sdk.Decision { asked = true; return ptcOn(title, ts) }
		_, rec := run(t, agentPlan(tt.spec...), nil, withModel(m), withHost(Host{Tools: registry(t, lookupTool(func(map[string]any) string { return "x" })), PTC: chain}))
		pr := eventData(rec, EvAgentPresentation)
		if len(pr) != 1 || pr[0]["requested"] != "native" || pr[0]["mode"] != "native" || !strings.HasPrefix(pr[0]["reason"].(string), tt.why) {
			t.Errorf("%v: presentation = %v", tt.spec, pr)
		}
		if asked {
			t.Errorf("%v: the PTC chain was consulted for a native node", tt.spec)
		}
	}
}

// TestAgentCodeModeDebugEnv: when PTC_DEBUG is configured, the chain's
// AGENTLAB_PTC_DEBUG=true reaches the program's environment; without it
// the variable is there with the explicit value false.
func TestAgentCodeModeDebugEnv(t *testing.T) {
	needInterpreter(t, "python3")
	for _, debug := range []bool{true, false} {
		cfg := sdk.Config{Mode: sdk.ModeOn, RolloutPercent: 100}
		if debug {
			cfg.Debug, cfg.DebugConfigured = sdk.DebugOptOut, true
		}
		chain := func(title string, ts []string) sdk.Decision { return sdk.Decide(cfg, "u", ts, title) }
		m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
			if i == 0 {
				return runCodeCall(`import os
return os.environ.get("AGENTLAB_PTC_DEBUG", "unset")`)
			}
			return answer("done")
		}}
		lookup := lookupTool(func(map[string]any) string { return "x" })
		res, rec := run(t, agentPlan("presentation", "ptc"), nil, withModel(m), withHost(Host{Tools: registry(t, lookup), PTC: chain, WorkDir: t.TempDir()}))
		if res.Status != StatusSucceeded {
			t.Fatalf("debug %v: %s %v", debug, res.Status, res.Err)
		}
		want := map[bool]string{true: "true", false: "false"}[debug]
		results := eventData(rec, EvToolResult)
		if last := results[len(results)-1]; last["ok"] != true || last["output"] != want {
			t.Errorf("debug %v: run_code result = %v, want output %q", debug, last, want)
		}
	}
}

// TestAgentCodeModeRefusesNativeCalls: in ptc mode only run_code is
// offered; a direct call of a folded tool is answered with a correction.
func TestAgentCodeModeRefusesNativeCalls(t *testing.T) {
	lookup := lookupTool(func(map[string]any) string { return "x" })
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i == 0 {
			return call("lookup", `{}`)
		}
		return answer("ok")
	}}
	_, rec := run(t, agentPlan("presentation", "ptc"), nil, withModel(m), withHost(Host{Tools: registry(t, lookup), PTC: ptcOn}))
	if lookup.calls != 0 {
		t.Error("a folded tool ran as a native call")
	}
	r := eventData(rec, EvToolResult)
	if len(r) != 1 || !strings.Contains(r[0]["error"].(string), "call it from a run_code program") {
		t.Errorf("results = %v", r)
	}
}

// A program that goes looking for credentials in its environment finds
// exactly the variables the run_code description told the model about,
// and nothing else: the description is the truth about the sandbox.
func TestRunCodeDescriptionNamesTheWholeEnvironment(t *testing.T) {
	needInterpreter(t, "python3")
	var desc string
	m := &agentModel{fn: func(i int, req ModelRequest) ModelResponse {
		if i == 0 {
			for _, d := range req.Tools {
				if d.Name == "run_code" {
					desc = d.Description
				}
			}
			return runCodeCall(`import os
return ",".join(sorted(os.environ))`)
		}
		return answer("done")
	}}
	t.Setenv("AGENTLAB_TEST_SECRET", "hunter2")
	lookup := lookupTool(func(map[string]any) string { return "x" })
	res, rec := run(t, agentPlan("presentation", "ptc"), nil, withModel(m), withHost(Host{Tools: registry(t, lookup), PTC: ptcOn, WorkDir: t.TempDir()}))
	if res.Status != StatusSucceeded {
		t.Fatalf("%s %v", res.Status, res.Err)
	}
	if !strings.Contains(desc, "empty environment") {
		t.Fatalf("the run_code description does not say the environment is empty:\n%s", desc)
	}
	results := eventData(rec, EvToolResult)
	got, _ := results[len(results)-1]["output"].(string)
	if got == "" {
		t.Fatalf("no environment listed: %v", results[len(results)-1])
	}
	t.Logf("environment: %s", got)
	for _, name := range strings.Split(got, ",") {
		if name == "PWD" || name == "LC_CTYPE" {
			continue // the launcher's working directory; Python's own C-locale coercion
		}
		if !strings.Contains(desc, name) {
			t.Errorf("the program found %s, which the description does not name (environment: %s)", name, got)
		}
	}
	for _, name := range []string{"PATH", "AGENTLAB_PTC_DEBUG"} {
		if !strings.Contains(","+got+",", ","+name+",") {
			t.Errorf("the description names %s but the program has no such variable (environment: %s)", name, got)
		}
	}
}

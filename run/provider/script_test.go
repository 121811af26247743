package provider

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/diag"
)

func loadTestScript(t *testing.T, name string) *Script {
	t.Helper()
	s, err := LoadScript(filepath.Join("testdata", "script", name), Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScriptPerCall(t *testing.T) {
	s := loadTestScript(t, "responses.yml")
	tests := []struct {
		node      string
		call      int
		text      string
		toolCalls string // canonical JSON of the calls
		stop      string
		errHas    string
		retryable bool
	}{
		{node: "summarize", call: 0, text: "first answer", stop: StopEnd},
		{node: "summarize", call: 1, text: "second answer", stop: StopEnd},
		{node: "summarize", call: 5, text: "second answer", stop: StopEnd}, // the last one repeats
		{node: "classify", call: 0, text: "yes", stop: StopEnd},
		{node: "classify", call: 3, text: "yes", stop: StopEnd},
		{node: "extract", call: 0, text: `{"region":"north","tags":["a","b"],"total":12.5}`, stop: StopEnd},
		{node: "agent1", call: 0, toolCalls: `[{"id":"call_agent1_0_0","name":"db_query__sales","args":{"sql":"SELECT 1"}}]`, stop: StopToolCalls},
		{node: "agent1", call: 1, text: "done", stop: StopEnd},
		{node: "flaky", call: 0, errHas: "rate limited (scripted at testdata/script/responses.yml:13:7)", retryable: true},
		{node: "flaky", call: 1, errHas: "still rate limited", retryable: true},
		{node: "flaky", call: 2, text: "ok after two failures", stop: StopEnd},
		{node: "broken", call: 0, errHas: "invalid request", retryable: false},
		{node: "costly", call: 0, text: "priced", stop: StopMaxTokens},
		{node: "fetcher", call: 2, toolCalls: `[{"id":"my-call","name":"http_fetch","args":{"url":"https://example.com"}},{"id":"call_fetcher_2_1","name":"file_list","args":{}}]`, stop: StopToolCalls},
		{node: "unknown", call: 0, text: "fallback text", stop: StopEnd},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			var streamed strings.Builder
			resp, err := s.Complete(context.Background(), Request{Node: tt.node, Call: tt.call, Messages: userMsg("hi")}, func(p string) { streamed.WriteString(p) })
			if tt.errHas != "" {
				var ce *CallError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.errHas) || IsRetryable(err) != tt.retryable {
					t.Fatalf("err = %v, want a CallError with %q, retryable %v", err, tt.errHas, tt.retryable)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tt.text || streamed.String() != tt.text {
				t.Errorf("text %q (streamed %q), want %q", resp.Text, streamed.String(), tt.text)
			}
			tc, _ := json.Marshal(resp.ToolCalls)
			if resp.ToolCalls == nil {
				tc = nil
			}
			if string(tc) != tt.toolCalls {
				t.Errorf("tool calls %s, want %s", tc, tt.toolCalls)
			}
			if resp.StopReason != tt.stop || resp.Model != "m" {
				t.Errorf("stop %q model %q", resp.StopReason, resp.Model)
			}
		})
	}
	resp, _ := s.Complete(context.Background(), Request{Node: "costly"}, nil)
	if resp.Usage != (Usage{InputTokens: 100, OutputTokens: 20, CostUSD: 0.0042}) {
		t.Errorf("scripted usage %+v", resp.Usage)
	}
	resp, _ = s.Complete(context.Background(), Request{Node: "summarize", Messages: userMsg("a question of some length")}, nil)
	if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens != EstimateTokens("first answer") {
		t.Errorf("estimated usage %+v", resp.Usage)
	}
}

func TestScriptJSONFile(t *testing.T) {
	s := loadTestScript(t, "responses.json")
	resp, err := s.Complete(context.Background(), Request{Node: "agent1"}, nil)
	if err != nil || len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Args) != `{"sql":"SELECT 1"}` {
		t.Fatalf("got %+v, %v", resp, err)
	}
	_, err = s.Complete(context.Background(), Request{Node: "nope", Call: 2}, nil)
	if !errors.Is(err, ErrNoScriptedResponse) || !strings.Contains(err.Error(), `node "nope" (call 2) in testdata/script/responses.json`) {
		t.Errorf("err = %v", err)
	}
}

func TestScriptCancelled(t *testing.T) {
	s := loadTestScript(t, "responses.yml")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Complete(ctx, Request{Node: "summarize"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestScriptCheck(t *testing.T) {
	s := loadTestScript(t, "responses.json")
	got := s.Check([]string{"summarise", "agent_1", "other"})
	want := []string{
		`testdata/script/responses.json:4:5: warning W-SCRIPT-NODE script has responses for node "agent1", which the flow does not have`,
		`testdata/script/responses.json:3:5: warning W-SCRIPT-NODE script has responses for node "summarize", which the flow does not have`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("got  %s\nwant %s", got[i], want[i])
		}
	}
	if got[0].Fix != `did you mean "agent_1"?` || got[1].Fix != `did you mean "summarise"?` {
		t.Errorf("fixes %q / %q", got[0].Fix, got[1].Fix)
	}
	if l := s.Check([]string{"summarize", "agent1"}); len(l) != 0 {
		t.Errorf("want no warnings, got %v", l)
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "line:col code" of each diagnostic, in order
	}{
		{"empty file", "", []string{"1:1 E-SCRIPT-EMPTY"}},
		{"only comment", "# nothing\n", []string{"1:1 E-SCRIPT-EMPTY"}},
		{"null document", "---\n~\n", []string{"2:1 E-SCRIPT-EMPTY"}},
		{"bad yaml", "nodes:\n  a: [x\n", []string{"1:1 E-SCRIPT-YAML"}},
		{"tab indent", "nodes:\n\ta: x\n", []string{"2:1 E-SCRIPT-YAML"}},
		{"bad json", `{"nodes": {"a": "x"}`, []string{"1:1 E-SCRIPT-YAML"}},
		{"two documents", "default: a\n---\ndefault: b\n", []string{"2:1 E-SCRIPT-SHAPE"}},
		{"top is a list", "- a\n", []string{"1:1 E-SCRIPT-SHAPE"}},
		{"unknown top key", "nodes: {}\ndefualt: x\n", []string{"2:1 E-SCRIPT-KEY"}},
		{"duplicate top key", "default: a\ndefault: b\n", []string{"2:1 E-SCRIPT-DUP"}},
		{"nodes not mapping", "nodes: [a, b]\n", []string{"1:8 E-SCRIPT-SHAPE"}},
		{"duplicate node", "nodes:\n  a: x\n  a: y\n", []string{"3:3 E-SCRIPT-DUP"}},
		{"empty list", "nodes:\n  a: []\n", []string{"2:6 E-SCRIPT-EMPTY"}},
		{"null response", "nodes:\n  a:\n", []string{"2:5 E-SCRIPT-EMPTY"}},
		{"nested list", "nodes:\n  a: [[x]]\n", []string{"2:7 E-SCRIPT-SHAPE"}},
		{"unknown response key", "nodes:\n  a: {txt: x}\n", []string{"2:7 E-SCRIPT-KEY"}},
		{"text and json", "nodes:\n  a: {text: x, json: 1}\n", []string{"2:16 E-SCRIPT-CONFLICT"}},
		{"error with text", "nodes:\n  a: {error: boom, text: x}\n", []string{"2:20 E-SCRIPT-CONFLICT"}},
		{"empty error", "nodes:\n  a: {error: ''}\n", []string{"2:14 E-SCRIPT-EMPTY"}},
		{"retryable without error", "nodes:\n  a: {text: x, retryable: true}\n", []string{"2:16 E-SCRIPT-CONFLICT"}},
		{"retryable not bool", "nodes:\n  a: {error: x, retryable: maybe}\n", []string{"2:28 E-SCRIPT-SHAPE"}},
		{"text is a list", "nodes:\n  a: {text: [x]}\n", []string{"2:13 E-SCRIPT-SHAPE"}},
		{"tool_calls not list", "nodes:\n  a: {tool_calls: {name: x}}\n", []string{"2:19 E-SCRIPT-SHAPE"}},
		{"tool_calls empty", "nodes:\n  a: {tool_calls: []}\n", []string{"2:19 E-SCRIPT-EMPTY"}},
		{"tool call no name", "nodes:\n  a: {tool_calls: [{args: {}}]}\n", []string{"2:20 E-SCRIPT-SHAPE"}},
		{"tool call unknown key", "nodes:\n  a: {tool_calls: [{name: t, arg: {}}]}\n", []string{"2:30 E-SCRIPT-KEY"}},
		{"args bad json string", "nodes:\n  a: {tool_calls: [{name: t, args: '{x'}]}\n", []string{"2:36 E-SCRIPT-JSON"}},
		{"args not object", "nodes:\n  a: {tool_calls: [{name: t, args: [1]}]}\n", []string{"2:36 E-SCRIPT-JSON"}},
		{"args json array string", "nodes:\n  a: {tool_calls: [{name: t, args: '[1]'}]}\n", []string{"2:36 E-SCRIPT-JSON"}},
		{"json inf", "nodes:\n  a: {json: .inf}\n", []string{"2:13 E-SCRIPT-JSON"}},
		{"usage negative", "nodes:\n  a: {text: x, usage: {input_tokens: -1}}\n", []string{"2:38 E-SCRIPT-SHAPE"}},
		{"usage fraction", "nodes:\n  a: {text: x, usage: {output_tokens: 1.5}}\n", []string{"2:39 E-SCRIPT-SHAPE"}},
		{"usage unknown key", "nodes:\n  a: {text: x, usage: {tokens: 1}}\n", []string{"2:24 E-SCRIPT-KEY"}},
		{"default list", "default: [a, b]\n", []string{"1:10 E-SCRIPT-SHAPE"}},
		{"several mistakes", "nodes:\n  a: {txt: x}\n  b: []\nfoo: 1\n", []string{"2:7 E-SCRIPT-KEY", "3:6 E-SCRIPT-EMPTY", "4:1 E-SCRIPT-KEY"}},
		{"complex key", "nodes:\n  ? [a]\n  : x\n", []string{"2:5 E-SCRIPT-SHAPE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := ParseScript("s.yml", []byte(tt.src))
			if s != nil {
				t.Fatalf("want no script for a file with errors")
			}
			var got []string
			for _, d := range diags {
				got = append(got, d.String()[len("s.yml:"):])
				if d.Fix == "" || d.File != "s.yml" || d.Severity != diag.Error {
					t.Errorf("diagnostic %+v lacks a fix, file or severity", d)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d diagnostics %q, want %q", len(got), got, tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], strings.Replace(w, " ", ": error ", 1)+" ") {
					t.Errorf("diagnostic %d = %q, want %q", i, got[i], w)
				}
			}
		})
	}
}

func TestParseScriptDidYouMean(t *testing.T) {
	_, diags := ParseScript("s.yml", []byte("nodes:\n  a: {txet: x}\n"))
	for _, d := range diags {
		if d.Code == CodeScriptKey && !strings.Contains(d.Fix, `did you mean "text"?`) {
			t.Errorf("fix %q", d.Fix)
		}
	}
}

func TestParseScriptAccepts(t *testing.T) {
	tests := []struct {
		name, src string
		node      string
		call      int
		text      string
	}{
		{"only default", "default: {text: hello}\n", "any", 0, "hello"},
		{"numbers are text", "nodes:\n  a: 42\n", "a", 0, "42"},
		{"empty text", "nodes:\n  a: {text: ''}\n", "a", 0, ""},
		{"anchors", "nodes:\n  a: &r {text: shared}\n  b: *r\n", "b", 0, "shared"},
		{"nodes empty", "nodes:\ndefault: d\n", "x", 0, "d"},
		{"json scalar", "nodes:\n  a: {json: 'quoted'}\n", "a", 0, `"quoted"`},
		{"multi-line", "nodes:\n  a: |\n    line one\n    line two\n", "a", 0, "line one\nline two\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := ParseScript("s.yml", []byte(tt.src))
			if s == nil {
				t.Fatalf("diagnostics: %v", diags)
			}
			r, ok := s.Lookup(tt.node, tt.call)
			if !ok || r.Text != tt.text {
				t.Errorf("Lookup = %+v %v, want text %q", r, ok, tt.text)
			}
		})
	}
}

func TestScriptErrorMessage(t *testing.T) {
	_, err := New("script:bad.yml", Options{BaseDir: t.TempDir()})
	var se *ScriptError
	if !errors.As(err, &se) || len(se.Diagnostics) != 1 || se.Diagnostics[0].Code != CodeScriptRead {
		t.Fatalf("err = %v", err)
	}
	_, err = LoadScript(filepath.Join("testdata", "script", "invalid.yml"), Options{})
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "invalid.yml:3:5: error E-SCRIPT-KEY unknown key \"txt\" in a response (did you mean \"text\"?") {
		t.Errorf("message:\n%s", err)
	}
}

// A CI author scripts what a real model does wrong: a tool call whose
// arguments are not JSON (raw_args, sent as written), and one answer for
// every iteration of a loop ("each[].draft"), an exact key winning.
func TestScriptRawArgsAndIterationWildcard(t *testing.T) {
	src := `nodes:
  agent:
    - tool_calls: [{name: db_query__t, raw_args: '{"sql": "SELECT'}]
  each[].draft: any iteration
  each[1].draft: the second
`
	s, diags := ParseScript("s.yml", []byte(src))
	if s == nil || len(diags) > 0 {
		t.Fatalf("parse: %v", diags)
	}
	resp, err := s.Complete(context.Background(), Request{Node: "agent"}, nil)
	if err != nil || len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Args) != `{"sql": "SELECT` {
		t.Fatalf("raw_args: %+v %v", resp, err)
	}
	for node, want := range map[string]string{"each[0].draft": "any iteration", "each[12].draft": "any iteration", "each[1].draft": "the second"} {
		if r, err := s.Complete(context.Background(), Request{Node: node}, nil); err != nil || r.Text != want {
			t.Errorf("%s: %q %v, want %q", node, r.Text, err, want)
		}
	}
	if l := s.Check([]string{"agent", "each[].draft"}); len(l) != 0 {
		t.Errorf("a wildcard key of a real loop node is warned about: %v", l)
	}
	if _, diags := ParseScript("s.yml", []byte("nodes:\n  a:\n    tool_calls: [{name: t, args: {}, raw_args: '{'}]\n")); len(diags) == 0 || diags[0].Code != CodeScriptConflict {
		t.Errorf("args with raw_args: %v", diags)
	}
}

// In an eval, one script file answers each question its own way: the
// questions: entry of the run's question wins over nodes:, then default.
func TestScriptPerQuestionAnswers(t *testing.T) {
	src := `nodes:
  ask: general
questions:
  lyon:
    ask: "[[v:Q1.r0.revenue]]"
  paris:
    other: x
default: fallback
`
	s, diags := ParseScript("s.yml", []byte(src))
	if s == nil || len(diags) > 0 {
		t.Fatalf("parse: %v", diags)
	}
	for q, want := range map[string]string{"lyon": "[[v:Q1.r0.revenue]]", "paris": "general", "": "general", "unknown": "general"} {
		s.opts.Question = q
		if r, err := s.Complete(context.Background(), Request{Node: "ask"}, nil); err != nil || r.Text != want {
			t.Errorf("question %q: %q %v, want %q", q, r.Text, err, want)
		}
	}
	if l := s.Check([]string{"ask"}); len(l) != 1 || !strings.Contains(l[0].Message, `"other"`) {
		t.Errorf("a question's unknown node is not warned about: %v", l)
	}
}

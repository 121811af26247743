package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestOpenAIStream(t *testing.T) {
	rec := &recorded{}
	srv, _ := server(t, rec, func(w http.ResponseWriter, _ *http.Request) {
		writeSSE(w,
			`{"id":"c1","model":"gpt-x-2026","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"lo, "}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"世界"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`,
			`[DONE]`)
	})
	temp := 0.2
	p, _ := testOpenAI(t, srv.URL+"/v1", func(o *Options) {
		o.Model = "gpt-x"
		o.Prices = map[string]Price{"gpt-x": {InputPerMTok: 1e6 / 100, OutputPerMTok: 1e6 / 10}}
	})
	var pieces []string
	resp, err := p.Complete(context.Background(), Request{Node: "n", System: "Be brief.", Messages: userMsg("hi"),
		Temperature: &temp, MaxTokens: 50, Seed: 7}, func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hel", "lo, ", "世界"}; !reflect.DeepEqual(pieces, want) {
		t.Errorf("pieces %q, want %q", pieces, want)
	}
	if resp.Text != "Hello, 世界" || resp.Model != "gpt-x-2026" || resp.StopReason != StopEnd {
		t.Errorf("resp %+v", resp)
	}
	if want := (Usage{InputTokens: 12, OutputTokens: 3, CostUSD: 0.12 + 0.3}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	body, h, path := rec.last()
	if path != "/v1/chat/completions" || h.Get("Authorization") != "Bearer "+testKey || h.Get("Accept") != "text/event-stream" {
		t.Errorf("path %q headers %v", path, h)
	}
	want := map[string]any{
		"model": "gpt-x", "stream": true, "stream_options": map[string]any{"include_usage": true},
		"temperature": 0.2, "max_tokens": 50.0, "seed": 7.0,
		"messages": []any{
			map[string]any{"role": "system", "content": "Be brief."},
			map[string]any{"role": "user", "content": "hi"},
		},
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("body\n%v\nwant\n%v", body, want)
	}
}

func TestOpenAIBaseURL(t *testing.T) {
	for _, tt := range []struct{ suffix, path string }{
		{"/v1", "/v1/chat/completions"},
		{"/v1/", "/v1/chat/completions"},
		{"/v1//", "/v1/chat/completions"},
		{"", "/chat/completions"},
		{"/", "/chat/completions"},
		{"/compatible-mode/v1/chat/completions", "/compatible-mode/v1/chat/completions"},
	} {
		rec := &recorded{}
		srv, _ := server(t, rec, okOpenAI)
		p, _ := testOpenAI(t, srv.URL+tt.suffix, nil)
		if _, err := p.Complete(context.Background(), Request{Node: "n"}, nil); err != nil {
			t.Fatalf("%q: %v", tt.suffix, err)
		}
		if _, _, path := rec.last(); path != tt.path {
			t.Errorf("base %q: path %q, want %q", tt.suffix, path, tt.path)
		}
	}
}

func TestOpenAIToolCalls(t *testing.T) {
	rec := &recorded{}
	srv, _ := server(t, rec, func(w http.ResponseWriter, _ *http.Request) {
		writeSSE(w,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"db_query__sales","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"sql\": \"SEL"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"search","arguments":"{\"q\""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ECT 1\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":": \"north\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_c","type":"function","function":{"name":"now"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`[DONE]`)
	})
	p, _ := testOpenAI(t, srv.URL, nil)
	req := Request{Node: "agent", Kind: KindAgent, Messages: []Message{
		{Role: RoleUser, Content: "sales?"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "old", Name: "db_query__sales", Args: json.RawMessage(`{"sql":"SELECT 0"}`)}}},
		{Role: RoleTool, ToolCallID: "old", Content: "0"},
	}, Tools: []ToolDecl{
		{Name: "db_query__sales", Description: "Run SQL", Schema: map[string]any{"type": "object", "properties": map[string]any{"sql": map[string]any{"type": "string"}}}},
		{Name: "now"},
	}}
	var pieces []string
	resp, err := p.Complete(context.Background(), req, func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{
		{ID: "call_a", Name: "db_query__sales", Args: json.RawMessage(`{"sql": "SELECT 1"}`)},
		{ID: "call_b", Name: "search", Args: json.RawMessage(`{"q": "north"}`)},
		{ID: "call_c", Name: "now", Args: json.RawMessage(`{}`)},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.StopReason != StopToolCalls || resp.Text != "" || len(pieces) != 0 {
		t.Errorf("got %+v stop %q text %q pieces %q", resp.ToolCalls, resp.StopReason, resp.Text, pieces)
	}
	if resp.Usage.InputTokens == 0 || !resp.Usage.CostUnknown {
		t.Errorf("usage without a usage chunk should be estimated and unpriced: %+v", resp.Usage)
	}
	body, _, _ := rec.last()
	got, _ := json.Marshal(map[string]any{"messages": body["messages"], "tools": body["tools"]})
	wantBody := `{"messages":[{"content":"sales?","role":"user"},` +
		`{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"sql\":\"SELECT 0\"}","name":"db_query__sales"},"id":"old","type":"function"}]},` +
		`{"content":"0","role":"tool","tool_call_id":"old"}],` +
		`"tools":[{"function":{"description":"Run SQL","name":"db_query__sales","parameters":{"properties":{"sql":{"type":"string"}},"type":"object"}},"type":"function"},` +
		`{"function":{"name":"now","parameters":{"properties":{},"type":"object"}},"type":"function"}]}`
	if string(got) != wantBody {
		t.Errorf("request\n%s\nwant\n%s", got, wantBody)
	}
}

func TestOpenAIStreamFailures(t *testing.T) {
	tests := []struct {
		name      string
		payloads  []string
		want      string
		retryable bool
	}{
		{"malformed chunk", []string{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"choices":[{"index":0,"delta":{"content":"b"}`},
			"chunk that is not valid JSON", false},
		{"thinking only", []string{`{"choices":[{"index":0,"delta":{"reasoning_content":"Let me think about"}}]}`,
			`{"choices":[{"index":0,"delta":{"reasoning_content":" this."}}]}`,
			`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}`, `[DONE]`},
			"only reasoning (24 characters) and no answer text", true},
		{"thinking ran out of tokens", []string{`{"choices":[{"index":0,"delta":{"reasoning":"hmm"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`, `[DONE]`},
			"whole token budget thinking (3 characters of reasoning)", false},
		{"think tags only", []string{`{"choices":[{"index":0,"delta":{"content":"<think>"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"hmm…"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"</think>\n\n"},"finish_reason":"stop"}]}`, `[DONE]`},
			"only reasoning (4 characters)", true},
		{"cut off", []string{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`}, "ended before the answer was complete", true},
		{"error in stream", []string{`{"error":{"message":"upstream overloaded","type":"server_error"}}`}, "upstream overloaded", true},
		{"refusal", []string{`{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `[DONE]`}, "refused to answer: I can't help", false},
		{"content filter", []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`, `[DONE]`}, "content filter", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := server(t, nil, func(w http.ResponseWriter, _ *http.Request) { writeSSE(w, tt.payloads...) })
			p, _ := testOpenAI(t, srv.URL, func(o *Options) { o.Remote.MaxAttempts = 1 })
			_, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || IsRetryable(err) != tt.retryable {
				t.Fatalf("err = %v, want %q (retryable %v)", err, tt.want, tt.retryable)
			}
		})
	}
}

// A model that writes a tool call whose arguments are not JSON gets the
// call passed on as written, once: the agent loop answers it with the
// reason (docs/agents.md), where re-sending the request would not tell
// the model anything.
func TestOpenAIMalformedToolCallPassedOn(t *testing.T) {
	calls := 0
	srv, _ := server(t, nil, func(w http.ResponseWriter, _ *http.Request) {
		calls++
		writeSSE(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"t","arguments":"{\"a\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`)
	})
	p, _ := testOpenAI(t, srv.URL, nil)
	resp, err := p.Complete(context.Background(), Request{Node: "n"}, nil)
	if err != nil || len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Args) != `{"a":` || calls != 1 {
		t.Fatalf("resp %+v, err %v, %d requests", resp, err, calls)
	}
}

func TestOpenAIThinkTags(t *testing.T) {
	srv, _ := server(t, nil, func(w http.ResponseWriter, _ *http.Request) {
		writeSSE(w, `{"choices":[{"index":0,"delta":{"content":"<think>plan"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"</think>\n\nThe "}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"answer."},"finish_reason":"stop"}]}`, `[DONE]`)
	})
	p, _ := testOpenAI(t, srv.URL, nil)
	var pieces []string
	resp, err := p.Complete(context.Background(), Request{Node: "n"}, func(s string) { pieces = append(pieces, s) })
	if err != nil || resp.Text != "The answer." || strings.Join(pieces, "") != resp.Text {
		t.Fatalf("text %q pieces %q, %v", resp.Text, pieces, err)
	}
}

func TestOpenAIStructuredOutput(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"label"}, "properties": map[string]any{
		"label": map[string]any{"enum": []any{"billing", "other"}}}}
	answer := func(text string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			b, _ := json.Marshal(text)
			writeSSE(w, `{"choices":[{"index":0,"delta":{"content":`+string(b)+`}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `[DONE]`)
		}
	}
	rec := &recorded{}
	srv, calls := server(t, rec, answer(`{"label": "weather"}`), answer("```json\n{\"label\": \"billing\"}\n```"))
	p, _ := testOpenAI(t, srv.URL, nil)
	var pieces strings.Builder
	resp, err := p.Complete(context.Background(), Request{Node: "n", OutputSchema: schema, Messages: userMsg("charged twice")},
		func(s string) { pieces.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"label": "billing"}` || pieces.String() != resp.Text || calls.Load() != 2 {
		t.Errorf("text %q, streamed %q, %d calls (the invalid first answer should be retried)", resp.Text, pieces.String(), calls.Load())
	}
	body, _, _ := rec.last()
	rf, _ := json.Marshal(body["response_format"])
	if want := `{"json_schema":{"name":"output","schema":{"properties":{"label":{"enum":["billing","other"]}},"required":["label"],"type":"object"},"strict":false},"type":"json_schema"}`; string(rf) != want {
		t.Errorf("response_format %s", rf)
	}
	sys := body["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(sys, "valid against this JSON Schema") {
		t.Errorf("system prompt %q lacks the schema instruction", sys)
	}

	// Retries exhausted: a clear, retryable failure.
	srv, _ = server(t, nil, answer("not json at all"))
	p, _ = testOpenAI(t, srv.URL, nil)
	_, err = p.Complete(context.Background(), Request{Node: "n", OutputSchema: schema}, nil)
	if err == nil || !strings.Contains(err.Error(), "not JSON although an output schema was given") || !IsRetryable(err) {
		t.Fatalf("err = %v", err)
	}
	srv, _ = server(t, nil, answer(`{"label":"weather"}`))
	p, _ = testOpenAI(t, srv.URL, nil)
	_, err = p.Complete(context.Background(), Request{Node: "n", OutputSchema: schema}, nil)
	if err == nil || !strings.Contains(err.Error(), "does not match the output schema") {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenAILabels(t *testing.T) {
	for _, tt := range []struct{ answer, want string }{
		{"Billing.", "billing"}, {`"technical"`, "technical"}, {"something else", "something else"},
	} {
		srv, _ := server(t, nil, func(w http.ResponseWriter, _ *http.Request) {
			b, _ := json.Marshal(tt.answer)
			writeSSE(w, fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%s},"finish_reason":"stop"}]}`, b), `[DONE]`)
		})
		p, _ := testOpenAI(t, srv.URL, nil)
		var pieces strings.Builder
		resp, err := p.Complete(context.Background(), Request{Node: "route", Kind: KindBranch, Labels: []string{"billing", "technical"}},
			func(s string) { pieces.WriteString(s) })
		if err != nil || resp.Text != tt.want || pieces.String() != tt.want {
			t.Errorf("%q: got %q (streamed %q), %v; want %q", tt.answer, resp.Text, pieces.String(), err, tt.want)
		}
	}
}

func TestOpenAIUsesMaxCompletionTokensOnOpenAI(t *testing.T) {
	clearRemoteEnv(t)
	p, err := NewOpenAI(Options{Remote: RemoteOptions{OpenAIKey: testKey}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.r.proto.body(Request{MaxTokens: 9}, "gpt-x")
	if err != nil || !strings.Contains(string(b), `"max_completion_tokens":9`) || strings.Contains(string(b), `"max_tokens"`) {
		t.Errorf("body %s, %v", b, err)
	}
	if p.r.endpoint.String() != DefaultOpenAIBaseURL+"/chat/completions" {
		t.Errorf("endpoint %s", p.r.endpoint)
	}
}

func TestOpenAIAdaptsToRefusedParameters(t *testing.T) {
	rec := &recorded{}
	srv, calls := server(t, rec, func(w http.ResponseWriter, r *http.Request) {
		body, _, _ := rec.last()
		switch {
		case body["stream_options"] != nil:
			status(400, nil, `{"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error"}}`)(w, r)
		case body["max_tokens"] != nil:
			status(400, nil, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error"}}`)(w, r)
		default:
			okOpenAI(w, r)
		}
	})
	p, waits := testOpenAI(t, srv.URL, func(o *Options) { o.Remote.MaxAttempts = 1 })
	resp, err := p.Complete(context.Background(), Request{Node: "n", MaxTokens: 20}, nil)
	if err != nil || resp.Text != "fine" || calls.Load() != 3 || len(*waits) != 0 {
		t.Fatalf("got %q, %v after %d calls, waits %v", resp.Text, err, calls.Load(), *waits)
	}
	if body, _, _ := rec.last(); body["max_completion_tokens"] != 20.0 {
		t.Errorf("body %v", body)
	}
	// Later calls go straight to the adapted form.
	if _, err := p.Complete(context.Background(), Request{Node: "n", MaxTokens: 20}, nil); err != nil || calls.Load() != 4 {
		t.Errorf("second call: %v after %d calls", err, calls.Load())
	}
	// Any other 400 still fails at once.
	srv, calls = server(t, nil, status(400, nil, `{"error":{"message":"messages: too short"}}`))
	p, _ = testOpenAI(t, srv.URL, nil)
	if _, err := p.Complete(context.Background(), Request{Node: "n"}, nil); err == nil || calls.Load() != 1 {
		t.Errorf("err %v after %d calls", err, calls.Load())
	}
}

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeAnthropic writes typed events as the Messages API does: an event
// line naming the type, then the data.
func writeAnthropic(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	f := w.(http.Flusher)
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		fmt.Fprintf(w, "event: %s\r\ndata: %s\r\n\r\n", head.Type, e)
		f.Flush()
	}
}

const (
	anStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-y-2026","content":[],"stop_reason":null,"usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}`
	anStop  = `{"type":"message_stop"}`
)

func anDelta(stop string, out int) string {
	return fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, out)
}

func anText(index int, text string) string {
	b, _ := json.Marshal(text)
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, b)
}

func okAnthropic(w http.ResponseWriter, _ *http.Request) {
	writeAnthropic(w, anStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		anText(0, "fine"), `{"type":"content_block_stop","index":0}`, anDelta("end_turn", 2), anStop)
}

func testAnthropic(t *testing.T, url string, mod func(*Options)) *Anthropic {
	t.Helper()
	clearRemoteEnv(t)
	opts := Options{Model: "claude-y", Remote: fastRemote()}
	opts.Remote.AnthropicBaseURL = url
	if mod != nil {
		mod(&opts)
	}
	p, err := NewAnthropic(opts)
	if err != nil {
		t.Fatal(err)
	}
	p.r.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return p
}

func TestAnthropicStream(t *testing.T) {
	rec := &recorded{}
	srv, _ := server(t, rec, func(w http.ResponseWriter, _ *http.Request) {
		writeAnthropic(w, anStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"ping"}`,
			anText(0, "Hello"), anText(0, ", "), anText(0, "world"),
			`{"type":"content_block_stop","index":0}`,
			anDelta("end_turn", 7), anStop)
	})
	p := testAnthropic(t, srv.URL, func(o *Options) {
		o.Prices = map[string]Price{"claude-y": {InputPerMTok: 3, OutputPerMTok: 15}}
	})
	var pieces []string
	resp, err := p.Complete(context.Background(), Request{Node: "n", System: "Be brief.", Messages: []Message{
		{Role: RoleSystem, Content: "Use British spelling."}, {Role: RoleUser, Content: "hi"}}}, func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pieces, []string{"Hello", ", ", "world"}) || resp.Text != "Hello, world" {
		t.Errorf("pieces %q text %q", pieces, resp.Text)
	}
	// The 5 tokens read from the cache cost a tenth of an input token.
	wantUsage := Usage{InputTokens: 25, OutputTokens: 7, CacheReadTokens: 5, CostUSD: (20*3 + 5*0.3 + 7*15) / 1e6}
	got := resp.Usage
	if math.Abs(got.CostUSD-wantUsage.CostUSD) < 1e-15 {
		got.CostUSD = wantUsage.CostUSD
	}
	if got != wantUsage || resp.Model != "claude-y-2026" || resp.StopReason != StopEnd {
		t.Errorf("usage %+v model %q stop %q", resp.Usage, resp.Model, resp.StopReason)
	}
	body, h, path := rec.last()
	if path != "/v1/messages" || h.Get("x-api-key") != testKey || h.Get("anthropic-version") != AnthropicVersion || h.Get("Authorization") != "" {
		t.Errorf("path %q headers %v", path, h)
	}
	want := map[string]any{"model": "claude-y", "max_tokens": float64(DefaultAnthropicMaxTokens), "stream": true,
		"system":   "Be brief.\n\nUse British spelling.",
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hi"}}}}}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("body\n%v\nwant\n%v", body, want)
	}
}

func TestAnthropicBaseURL(t *testing.T) {
	for _, suffix := range []string{"", "/", "/v1", "/v1/", "/v1/messages"} {
		rec := &recorded{}
		srv, _ := server(t, rec, okAnthropic)
		p := testAnthropic(t, srv.URL+suffix, nil)
		if _, err := p.Complete(context.Background(), Request{Node: "n", Messages: userMsg("x")}, nil); err != nil {
			t.Fatalf("%q: %v", suffix, err)
		}
		if _, _, path := rec.last(); path != "/v1/messages" {
			t.Errorf("base %q: path %q", suffix, path)
		}
	}
}

func TestAnthropicToolCalls(t *testing.T) {
	rec := &recorded{}
	srv, _ := server(t, rec, func(w http.ResponseWriter, _ *http.Request) {
		writeAnthropic(w, anStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			anText(0, "Checking."),
			`{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"db_query__sales","input":{}}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"sql\": \"SEL"}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ECT 1\"}"}}`,
			`{"type":"content_block_stop","index":1}`,
			`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"now","input":{}}}`,
			`{"type":"content_block_stop","index":2}`,
			anDelta("tool_use", 30), anStop)
	})
	p := testAnthropic(t, srv.URL, nil)
	req := Request{Node: "agent", Messages: []Message{
		{Role: RoleUser, Content: "sales?"},
		{Role: RoleAssistant, Content: "Two lookups.", ToolCalls: []ToolCall{
			{ID: "a", Name: "db_query__sales", Args: json.RawMessage(`{"sql":"SELECT 0"}`)},
			{ID: "b", Name: "now", Args: json.RawMessage(`not json`)}}},
		{Role: RoleTool, ToolCallID: "a", Content: "0"},
		{Role: RoleTool, ToolCallID: "b", Content: "2026-01-01"},
	}, Tools: []ToolDecl{{Name: "db_query__sales", Description: "Run SQL", Schema: map[string]any{"type": "object"}}, {Name: "now"}}}
	var pieces strings.Builder
	resp, err := p.Complete(context.Background(), req, func(s string) { pieces.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{
		{ID: "toolu_1", Name: "db_query__sales", Args: json.RawMessage(`{"sql": "SELECT 1"}`)},
		{ID: "toolu_2", Name: "now", Args: json.RawMessage(`{}`)},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) || resp.StopReason != StopToolCalls || resp.Text != "Checking." || pieces.String() != "Checking." {
		t.Errorf("calls %+v stop %q text %q", resp.ToolCalls, resp.StopReason, resp.Text)
	}
	body, _, _ := rec.last()
	got, _ := json.Marshal(map[string]any{"messages": body["messages"], "tools": body["tools"]})
	wantBody := `{"messages":[{"content":[{"text":"sales?","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"Two lookups.","type":"text"},{"id":"a","input":{"sql":"SELECT 0"},"name":"db_query__sales","type":"tool_use"},{"id":"b","input":{},"name":"now","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":"0","tool_use_id":"a","type":"tool_result"},{"content":"2026-01-01","tool_use_id":"b","type":"tool_result"}],"role":"user"}],` +
		`"tools":[{"description":"Run SQL","input_schema":{"type":"object"},"name":"db_query__sales"},{"input_schema":{"properties":{},"type":"object"},"name":"now"}]}`
	if string(got) != wantBody {
		t.Errorf("request\n%s\nwant\n%s", got, wantBody)
	}
}

func TestAnthropicFailures(t *testing.T) {
	tests := []struct {
		name      string
		events    []string
		want      string
		retryable bool
	}{
		{"thinking only", []string{anStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Considering…"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}`,
			`{"type":"content_block_stop","index":0}`, anDelta("max_tokens", 100), anStop},
			"whole token budget thinking (12 characters of reasoning) and wrote no answer; raise max_tokens", false},
		{"overloaded mid-stream", []string{anStart, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
			"Overloaded (overloaded_error)", true},
		{"invalid request mid-stream", []string{anStart, `{"type":"error","error":{"type":"invalid_request_error","message":"nope"}}`},
			"nope (invalid_request_error)", false},
		{"malformed event", []string{anStart, `{"type":"content_block_delta","index":0,"delta":`}, "event that is not valid JSON", false},
		{"no message_stop", []string{anStart, anText(0, "half")}, "ended before the answer was complete", true},
		{"refusal", []string{anStart, anDelta("refusal", 1), anStop}, "refused", false},
		{"tool input on text", []string{anStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`}, "not a tool call", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := server(t, nil, func(w http.ResponseWriter, _ *http.Request) { writeAnthropic(w, tt.events...) })
			p := testAnthropic(t, srv.URL, func(o *Options) { o.Remote.MaxAttempts = 1 })
			_, err := p.Complete(context.Background(), Request{Node: "n", Messages: userMsg("x")}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || IsRetryable(err) != tt.retryable {
				t.Fatalf("err = %v, want %q (retryable %v)", err, tt.want, tt.retryable)
			}
		})
	}
}

func TestAnthropicRetry529(t *testing.T) {
	srv, calls := server(t, nil, status(529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), okAnthropic)
	p := testAnthropic(t, srv.URL, nil)
	resp, err := p.Complete(context.Background(), Request{Node: "n", Messages: userMsg("x")}, nil)
	if err != nil || resp.Text != "fine" || calls.Load() != 2 {
		t.Fatalf("got %q, %v after %d calls", resp.Text, err, calls.Load())
	}
	srv, _ = server(t, nil, status(401, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+testKey+`"}}`))
	p = testAnthropic(t, srv.URL, nil)
	_, err = p.Complete(context.Background(), Request{Node: "n", Messages: userMsg("x")}, nil)
	if err == nil || IsRetryable(err) || strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "check ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

func TestAnthropicStructuredOutput(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"n"}, "properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	rec := &recorded{}
	srv, _ := server(t, rec, func(w http.ResponseWriter, _ *http.Request) {
		writeAnthropic(w, anStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			anText(0, "Here is the JSON:\n```json\n{\"n\": "), anText(0, "3}\n```"), anDelta("end_turn", 9), anStop)
	})
	p := testAnthropic(t, srv.URL, nil)
	var pieces strings.Builder
	resp, err := p.Complete(context.Background(), Request{Node: "n", OutputSchema: schema, Messages: userMsg("count")}, func(s string) { pieces.WriteString(s) })
	if err != nil || resp.Text != `{"n": 3}` || pieces.String() != resp.Text {
		t.Fatalf("text %q streamed %q, %v", resp.Text, pieces.String(), err)
	}
	body, _, _ := rec.last()
	if sys, _ := body["system"].(string); !strings.Contains(sys, `{"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"}`) {
		t.Errorf("system %q lacks the schema", sys)
	}
}

func TestAnthropicNoMessages(t *testing.T) {
	b, err := anthropicProto{}.body(Request{System: "Say hi."}, "m")
	if err != nil || !strings.Contains(string(b), `"messages":[{"role":"user","content":[{"type":"text","text":"Answer as instructed."}]}]`) {
		t.Errorf("body %s, %v", b, err)
	}
}

// A tool that failed is reported to Anthropic as is_error, and a result
// that says "R&D <b>" reaches either API as written, not HTML-escaped.
func TestToolResultsFaithful(t *testing.T) {
	msgs := []Message{{Role: RoleUser, Content: "q"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "t", Args: json.RawMessage(`{}`)}, {ID: "c2", Name: "t", Args: json.RawMessage(`{}`)}}},
		{Role: RoleTool, ToolCallID: "c1", Content: "R&D <b>grew</b>"},
		{Role: RoleTool, ToolCallID: "c2", Content: "error: permission refused: t needs approval", IsError: true}}
	an, err := anthropicProto{}.body(Request{Messages: msgs}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(an), `"content":"R&D <b>grew</b>"}`) || !strings.Contains(string(an), `"content":"error: permission refused: t needs approval","is_error":true}`) {
		t.Errorf("anthropic body: %s", an)
	}
	oa, err := (&openaiProto{}).body(Request{Messages: msgs}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(oa), `R&D <b>grew</b>`) || strings.Contains(string(oa), `\u0026`) {
		t.Errorf("openai body: %s", oa)
	}
}

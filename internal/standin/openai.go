package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentlab/agentlab/run/provider"
)

// openaiWire speaks Chat Completions (POST …/chat/completions).
type openaiWire struct{}

func (openaiWire) name() string { return "openai" }

type oaIn struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Stream    bool  `json:"stream"`
	MaxTokens int   `json:"max_tokens"`
	Seed      int64 `json:"seed"`
}

func (openaiWire) decode(r *http.Request) ([]byte, provider.Request, bool, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, provider.Request{}, false, err
	}
	var in oaIn
	if err := json.Unmarshal(body, &in); err != nil {
		return body, provider.Request{}, false, fmt.Errorf("the body is not valid JSON: %v", err)
	}
	req := provider.Request{Model: in.Model, MaxTokens: in.MaxTokens}
	var system []string
	for _, m := range in.Messages {
		content := ""
		if m.Content != nil {
			content = *m.Content
		}
		if m.Role == provider.RoleSystem {
			system = append(system, content)
			continue
		}
		msg := provider.Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, provider.ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: json.RawMessage(tc.Function.Arguments)})
		}
		req.Messages = append(req.Messages, msg)
	}
	req.System = strings.Join(system, "\n\n")
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, provider.ToolDecl{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters})
	}
	if in.ResponseFormat != nil && in.ResponseFormat.Type == "json_schema" {
		req.OutputSchema = in.ResponseFormat.JSONSchema.Schema
	}
	interpret(&req)
	return body, req, in.Stream, nil
}

func oaFinish(resp provider.Response) string {
	switch {
	case len(resp.ToolCalls) > 0:
		return "tool_calls"
	case resp.StopReason == provider.StopMaxTokens:
		return "length"
	}
	return "stop"
}

func oaUsage(resp provider.Response) map[string]any {
	return map[string]any{"prompt_tokens": resp.Usage.InputTokens, "completion_tokens": resp.Usage.OutputTokens,
		"total_tokens": resp.Usage.InputTokens + resp.Usage.OutputTokens}
}

func sse(v any) string {
	b, _ := json.Marshal(v)
	return "data: " + string(b) + "\n\n"
}

// events streams the text in pieces of a few words, each tool call as a
// name chunk and argument chunks, then the finish reason, the usage chunk
// and [DONE].
func (openaiWire) events(resp provider.Response) []string {
	chunk := func(delta map[string]any, finish any) string {
		return sse(map[string]any{"id": "chatcmpl-standin", "object": "chat.completion.chunk", "model": resp.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	out := []string{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, piece := range pieces(resp.Text) {
		out = append(out, chunk(map[string]any{"content": piece}, nil))
	}
	for i, tc := range resp.ToolCalls {
		out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}}}, nil))
		for _, piece := range pieces(string(tc.Args)) {
			out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}, nil))
		}
	}
	out = append(out, chunk(map[string]any{}, oaFinish(resp)))
	out = append(out, sse(map[string]any{"id": "chatcmpl-standin", "object": "chat.completion.chunk", "model": resp.Model, "choices": []any{}, "usage": oaUsage(resp)}))
	return append(out, "data: [DONE]\n\n")
}

func (openaiWire) whole(resp provider.Response) any {
	msg := map[string]any{"role": "assistant", "content": resp.Text}
	if len(resp.ToolCalls) > 0 {
		var tcs []any
		for _, tc := range resp.ToolCalls {
			tcs = append(tcs, map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": string(tc.Args)}})
		}
		msg["tool_calls"] = tcs
		if resp.Text == "" {
			msg["content"] = nil
		}
	}
	return map[string]any{"id": "chatcmpl-standin", "object": "chat.completion", "model": resp.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": oaFinish(resp)}}, "usage": oaUsage(resp)}
}

func (openaiWire) fail(w http.ResponseWriter, status int, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// pieces cuts s into chunks of about three words, as a model streams.
func pieces(s string) []string {
	var out []string
	words := strings.SplitAfter(s, " ")
	for i := 0; i < len(words); i += 3 {
		out = append(out, strings.Join(words[i:min(i+3, len(words))], ""))
	}
	return out
}

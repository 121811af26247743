package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentlab/agentlab/run/provider"
)

// anthropicWire speaks the Messages API (POST /v1/messages).
type anthropicWire struct{}

func (anthropicWire) name() string { return "anthropic" }

type anBlockIn struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type anIn struct {
	Model    string `json:"model"`
	System   string `json:"system"`
	Messages []struct {
		Role    string      `json:"role"`
		Content []anBlockIn `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
	Stream    bool `json:"stream"`
	MaxTokens int  `json:"max_tokens"`
}

func (anthropicWire) decode(r *http.Request) ([]byte, provider.Request, bool, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, provider.Request{}, false, err
	}
	var in anIn
	if err := json.Unmarshal(body, &in); err != nil {
		return body, provider.Request{}, false, fmt.Errorf("the body is not valid JSON: %v", err)
	}
	if in.MaxTokens <= 0 {
		return body, provider.Request{}, false, fmt.Errorf("max_tokens: Field required")
	}
	req := provider.Request{Model: in.Model, System: in.System}
	for _, m := range in.Messages {
		var text []string
		var calls []provider.ToolCall
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "tool_use":
				calls = append(calls, provider.ToolCall{ID: b.ID, Name: b.Name, Args: b.Input})
			case "tool_result":
				var s string
				if json.Unmarshal(b.Content, &s) != nil {
					s = string(b.Content)
				}
				req.Messages = append(req.Messages, provider.Message{Role: provider.RoleTool, ToolCallID: b.ToolUseID, Content: s})
			}
		}
		if len(text) > 0 || len(calls) > 0 {
			req.Messages = append(req.Messages, provider.Message{Role: m.Role, Content: strings.Join(text, "\n"), ToolCalls: calls})
		}
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, provider.ToolDecl{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	interpret(&req)
	return body, req, in.Stream, nil
}

func anStop(resp provider.Response) string {
	switch {
	case len(resp.ToolCalls) > 0:
		return "tool_use"
	case resp.StopReason == provider.StopMaxTokens:
		return "max_tokens"
	}
	return "end_turn"
}

func anSSE(typ string, v map[string]any) string {
	v["type"] = typ
	b, _ := json.Marshal(v)
	return "event: " + typ + "\ndata: " + string(b) + "\n\n"
}

// events streams message_start (with the input tokens), a text block in
// pieces, a tool_use block per call with its input in pieces,
// message_delta (stop reason, output tokens) and message_stop.
func (anthropicWire) events(resp provider.Response) []string {
	out := []string{anSSE("message_start", map[string]any{"message": map[string]any{"id": "msg_standin", "type": "message", "role": "assistant",
		"model": resp.Model, "content": []any{}, "usage": map[string]any{"input_tokens": resp.Usage.InputTokens, "output_tokens": 1}}})}
	idx := 0
	if resp.Text != "" {
		out = append(out, anSSE("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "text", "text": ""}}))
		for _, p := range pieces(resp.Text) {
			out = append(out, anSSE("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "text_delta", "text": p}}))
		}
		out = append(out, anSSE("content_block_stop", map[string]any{"index": idx}))
		idx++
	}
	for _, tc := range resp.ToolCalls {
		out = append(out, anSSE("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}}}))
		for _, p := range pieces(string(tc.Args)) {
			out = append(out, anSSE("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}}))
		}
		out = append(out, anSSE("content_block_stop", map[string]any{"index": idx}))
		idx++
	}
	out = append(out, anSSE("message_delta", map[string]any{"delta": map[string]any{"stop_reason": anStop(resp)}, "usage": map[string]any{"output_tokens": resp.Usage.OutputTokens}}))
	return append(out, anSSE("message_stop", map[string]any{}))
}

func (anthropicWire) whole(resp provider.Response) any {
	var content []any
	if resp.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": resp.Text})
	}
	for _, tc := range resp.ToolCalls {
		var input any = json.RawMessage(tc.Args)
		if !json.Valid(tc.Args) {
			input = map[string]any{}
		}
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": input})
	}
	return map[string]any{"id": "msg_standin", "type": "message", "role": "assistant", "model": resp.Model, "content": content,
		"stop_reason": anStop(resp), "usage": map[string]any{"input_tokens": resp.Usage.InputTokens, "output_tokens": resp.Usage.OutputTokens}}
}

func (anthropicWire) fail(w http.ResponseWriter, status int, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	kind := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
		429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}[status]
	if kind == "" {
		kind = "api_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}})
}

package provider

import (
	"encoding/json"
	"strings"
)

// Some servers answer with one JSON body although a stream was asked for
// (a proxy that buffers, a compatible server without streaming). Such an
// answer is as good as a stream: it is read whole, and its text is
// delivered to the caller as one piece.

// oaWhole is a chat completion sent as one body.
type oaWhole struct {
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			Refusal          *string `json:"refusal"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// decodeWhole reads a chat completion body by replaying it as the one
// chunk of a stream, so that both paths share the reading of content,
// reasoning, refusals, tool calls and finish reasons.
func (p *openaiProto) decodeWhole(raw []byte, res *streamResult, emit func(string)) error {
	var w oaWhole
	if err := json.Unmarshal(raw, &w); err != nil {
		return failf(false, "the server answered with a JSON body that is not a chat completion (%v): %s", err, excerpt(string(raw)))
	}
	if len(w.Choices) == 0 {
		return failf(false, "the server answered with a JSON body without any choice: %s", excerpt(string(raw)))
	}
	chunk := map[string]any{"model": w.Model}
	var choices []any
	for _, c := range w.Choices {
		var tcs []any
		for i, tc := range c.Message.ToolCalls {
			tcs = append(tcs, map[string]any{"index": i, "id": tc.ID, "function": map[string]any{"name": tc.Function.Name, "arguments": tc.Function.Arguments}})
		}
		choices = append(choices, map[string]any{"index": c.Index, "finish_reason": c.FinishReason, "delta": map[string]any{
			"content": c.Message.Content, "reasoning_content": c.Message.ReasoningContent, "reasoning": c.Message.Reasoning,
			"refusal": c.Message.Refusal, "tool_calls": tcs}})
	}
	chunk["choices"] = choices
	if len(w.Usage) > 0 && string(w.Usage) != "null" {
		chunk["usage"] = w.Usage
	}
	b, err := json.Marshal(chunk)
	if err != nil {
		return failf(false, "cannot read the answer: %v", err)
	}
	events := newSSEReader(strings.NewReader("data: " + string(b) + "\n\ndata: [DONE]\n\n"))
	return p.decode(events, res, emit)
}

// anWhole is a Messages API answer sent as one body.
type anWhole struct {
	Model   string `json:"model"`
	Content []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Input    json.RawMessage `json:"input"`
		Thinking string          `json:"thinking"`
	} `json:"content"`
	StopReason string  `json:"stop_reason"`
	Usage      anUsage `json:"usage"`
}

// decodeWhole reads a Messages answer body by replaying it as the events
// of a stream.
func (p anthropicProto) decodeWhole(raw []byte, res *streamResult, emit func(string)) error {
	var w anWhole
	if err := json.Unmarshal(raw, &w); err != nil || w.Content == nil && w.StopReason == "" {
		return failf(false, "the server answered with a JSON body that is not a Messages answer: %s", excerpt(string(raw)))
	}
	var b strings.Builder
	ev := func(v map[string]any) {
		j, _ := json.Marshal(v)
		b.WriteString("data: " + string(j) + "\n\n")
	}
	ev(map[string]any{"type": "message_start", "message": map[string]any{"model": w.Model, "usage": w.Usage}})
	for i, c := range w.Content {
		switch c.Type {
		case "text":
			ev(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": c.Text}})
		case "tool_use":
			ev(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": c.Input}})
		case "thinking", "redacted_thinking":
			ev(map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": c.Type}})
			ev(map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": c.Thinking}})
		}
	}
	ev(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": w.StopReason}})
	ev(map[string]any{"type": "message_stop"})
	return p.decode(newSSEReader(strings.NewReader(b.String())), res, emit)
}

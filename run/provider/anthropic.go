package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// AnthropicVersion is the API version header the anthropic provider sends.
const AnthropicVersion = "2023-06-01"

// DefaultAnthropicMaxTokens is max_tokens when the request sets none: the
// Messages API requires one.
const DefaultAnthropicMaxTokens = 8192

// Anthropic calls the Anthropic Messages API (POST {base}/v1/messages with
// "stream": true).
type Anthropic struct{ r *remote }

// NewAnthropic returns the anthropic provider. The key comes from
// ANTHROPIC_API_KEY or Options.Remote.AnthropicKey, the base URL from
// ANTHROPIC_BASE_URL or Options.Remote.AnthropicBaseURL (default
// https://api.anthropic.com; a base that already ends in /v1 is accepted).
func NewAnthropic(opts Options) (*Anthropic, error) {
	key := setting("ANTHROPIC_API_KEY", opts.Remote.AnthropicKey, "")
	base := strings.TrimRight(setting("ANTHROPIC_BASE_URL", opts.Remote.AnthropicBaseURL, DefaultAnthropicBaseURL), "/")
	path := "/v1/messages"
	if strings.HasSuffix(base, "/v1") {
		path = "/messages"
	}
	if strings.HasSuffix(base, "/v1/messages") {
		path = ""
	}
	r, err := newRemote("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", key, base, path, opts, anthropicProto{})
	if err != nil {
		return nil, err
	}
	r.cache = anthropicCacheRates
	return &Anthropic{r: r}, nil
}

// Name implements Provider.
func (a *Anthropic) Name() string { return "anthropic" }

// Complete implements Provider.
func (a *Anthropic) Complete(ctx context.Context, req Request, onToken func(string)) (Response, error) {
	return a.r.complete(ctx, req, onToken)
}

// String keeps the key out of fmt's %v of a provider.
func (a *Anthropic) String() string { return fmt.Sprintf("anthropic(%s)", a.r.endpoint.Redacted()) }

type anthropicProto struct{}

type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type anMessage struct {
	Role    string    `json:"role"`
	Content []anBlock `json:"content"`
}

type anTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

type anRequest struct {
	Model       string      `json:"model"`
	MaxTokens   int         `json:"max_tokens"`
	System      string      `json:"system,omitempty"`
	Messages    []anMessage `json:"messages"`
	Tools       []anTool    `json:"tools,omitempty"`
	Temperature *float64    `json:"temperature,omitempty"`
	Stream      bool        `json:"stream"`
}

// body maps the conversation onto the Messages API: system messages join
// the system prompt, tool results become tool_result blocks of a user
// turn, and consecutive turns of one role are merged, so that the results
// of parallel tool calls travel together as the API asks.
func (anthropicProto) body(req Request, model string) ([]byte, error) {
	out := anRequest{Model: model, MaxTokens: req.MaxTokens, Temperature: req.Temperature, Stream: true}
	if out.MaxTokens <= 0 {
		out.MaxTokens = DefaultAnthropicMaxTokens
	}
	system := []string{}
	if s := instructions(req); s != "" {
		system = append(system, s)
	}
	add := func(role string, blocks ...anBlock) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			out.Messages[n-1].Content = append(out.Messages[n-1].Content, blocks...)
			return
		}
		out.Messages = append(out.Messages, anMessage{Role: role, Content: blocks})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			if s := strings.TrimSpace(m.Content); s != "" {
				system = append(system, s)
			}
		case RoleTool:
			add("user", anBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content, IsError: m.IsError})
		case RoleAssistant:
			var blocks []anBlock
			if strings.TrimSpace(m.Content) != "" {
				blocks = append(blocks, anBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage(tc.Args)
				if !isJSONObject(input) {
					input = json.RawMessage("{}")
				}
				blocks = append(blocks, anBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
			}
			add("assistant", blocks...)
		default:
			if strings.TrimSpace(m.Content) != "" {
				add("user", anBlock{Type: "text", Text: m.Content})
			}
		}
	}
	if len(out.Messages) == 0 || out.Messages[0].Role != "user" {
		// The API wants the conversation to open with the user.
		out.Messages = append([]anMessage{{Role: "user", Content: []anBlock{{Type: "text", Text: "Answer as instructed."}}}}, out.Messages...)
	}
	out.System = strings.Join(system, "\n\n")
	for _, t := range req.Tools {
		schema := t.Schema
		if schema == nil {
			schema = emptyObjectSchema()
		}
		out.Tools = append(out.Tools, anTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return marshalBody(out)
}

// isJSONObject reports whether raw holds a JSON object.
func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil
}

func (anthropicProto) header(h http.Header, key string) {
	if key != "" {
		h.Set("x-api-key", key)
	}
	h.Set("anthropic-version", AnthropicVersion)
}

// anEvent is one event of a Messages stream; which fields are set depends
// on its type.
type anEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Model string  `json:"model"`
		Usage anUsage `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
		Text  string          `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type anUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

func (anthropicProto) decode(events *sseReader, res *streamResult, emit func(string)) error {
	type block struct {
		kind  string
		tool  int // index into res.toolCalls for tool_use
		input strings.Builder
		start json.RawMessage
	}
	blocks := map[int]*block{}
	var order []*block
	defer func() {
		for _, b := range order {
			if b.kind != "tool_use" {
				continue
			}
			args := b.input.String()
			if strings.TrimSpace(args) == "" && len(b.start) > 0 {
				args = string(b.start)
			}
			res.toolCalls[b.tool].Args = json.RawMessage(args)
		}
	}()
	for {
		sse, err := events.Next()
		if errors.Is(err, io.EOF) {
			return nil // without message_stop, finish reports it
		}
		if err != nil {
			return err
		}
		var ev anEvent
		if err := json.Unmarshal([]byte(sse.Data), &ev); err != nil {
			return failf(false, "the server sent an event that is not valid JSON (%v): %s", err, excerpt(sse.Data))
		}
		if ev.Type == "" {
			ev.Type = sse.Event
		}
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				res.model = ev.Message.Model
				res.usage.InputTokens = ev.Message.Usage.InputTokens + ev.Message.Usage.CacheCreationInputTokens + ev.Message.Usage.CacheReadInputTokens
				res.usage.CacheReadTokens = ev.Message.Usage.CacheReadInputTokens
				res.usage.CacheWriteTokens = ev.Message.Usage.CacheCreationInputTokens
				res.usage.OutputTokens = ev.Message.Usage.OutputTokens
				res.haveUsage = true
			}
		case "content_block_start":
			if ev.ContentBlock == nil {
				return failf(false, "the server sent content_block_start without a content block")
			}
			b := &block{kind: ev.ContentBlock.Type}
			switch b.kind {
			case "tool_use":
				res.toolCalls = append(res.toolCalls, ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
				b.tool = len(res.toolCalls) - 1
				if isJSONObject(ev.ContentBlock.Input) && string(ev.ContentBlock.Input) != "{}" {
					b.start = ev.ContentBlock.Input
				}
			case "thinking", "redacted_thinking":
				res.thought = true
			case "text":
				if ev.ContentBlock.Text != "" {
					res.text.WriteString(ev.ContentBlock.Text)
					emit(ev.ContentBlock.Text)
				}
			}
			blocks[ev.Index] = b
			order = append(order, b)
		case "content_block_delta":
			if ev.Delta == nil {
				continue
			}
			b := blocks[ev.Index]
			switch ev.Delta.Type {
			case "text_delta":
				res.text.WriteString(ev.Delta.Text)
				emit(ev.Delta.Text)
			case "input_json_delta":
				if b == nil || b.kind != "tool_use" {
					return failf(false, "the server sent tool input for content block %d, which is not a tool call", ev.Index)
				}
				b.input.WriteString(ev.Delta.PartialJSON)
			case "thinking_delta":
				res.reasoning += len([]rune(ev.Delta.Thinking))
			}
		case "message_delta":
			if ev.Delta != nil && ev.Delta.StopReason != "" {
				res.rawStop = ev.Delta.StopReason
				switch ev.Delta.StopReason {
				case "tool_use":
					res.stop = StopToolCalls
				case "max_tokens", "model_context_window_exceeded":
					res.stop = StopMaxTokens
				case "refusal":
					return failf(false, "the model refused to answer (stop reason refusal)")
				default:
					res.stop = StopEnd
				}
			}
			if ev.Usage != nil {
				// output_tokens is cumulative; input_tokens, when
				// present, is the final count.
				res.usage.OutputTokens = ev.Usage.OutputTokens
				if in := ev.Usage.InputTokens + ev.Usage.CacheCreationInputTokens + ev.Usage.CacheReadInputTokens; in > 0 {
					res.usage.InputTokens = in
					res.usage.CacheReadTokens = ev.Usage.CacheReadInputTokens
					res.usage.CacheWriteTokens = ev.Usage.CacheCreationInputTokens
				}
				res.haveUsage = true
			}
		case "message_stop":
			res.done = true
			return nil
		case "error":
			msg, kind := "unknown error", ""
			if ev.Error != nil {
				msg, kind = ev.Error.Message, ev.Error.Type
			}
			retry := kind == "overloaded_error" || kind == "api_error" || kind == "rate_limit_error" || kind == "timeout_error"
			return failf(retry, "the server reported an error in the stream: %s (%s)", msg, kind)
		}
	}
}

var _ Provider = (*Anthropic)(nil)

package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// OpenAI calls an OpenAI-compatible chat completions API (POST
// {base}/chat/completions with "stream": true). Any server that speaks
// that protocol works by pointing OPENAI_BASE_URL at it: OpenAI itself,
// DeepSeek, Qwen (DashScope compatible mode), Kimi, Ollama, vLLM,
// llama.cpp and others.
type OpenAI struct{ r *remote }

// NewOpenAI returns the openai provider. The key comes from OPENAI_API_KEY
// or Options.Remote.OpenAIKey, the base URL from OPENAI_BASE_URL or
// Options.Remote.OpenAIBaseURL (default https://api.openai.com/v1). A
// missing key is an error wrapping ErrMissingKey, except for a server on
// this machine.
func NewOpenAI(opts Options) (*OpenAI, error) {
	key := setting("OPENAI_API_KEY", opts.Remote.OpenAIKey, "")
	base := setting("OPENAI_BASE_URL", opts.Remote.OpenAIBaseURL, DefaultOpenAIBaseURL)
	p := &openaiProto{}
	r, err := newRemote("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", key, base, "/chat/completions", opts, p)
	if err != nil {
		return nil, err
	}
	// OpenAI's own reasoning models refuse max_tokens; most compatible
	// servers know only max_tokens.
	p.completionTokens.Store(strings.EqualFold(r.endpoint.Hostname(), "api.openai.com"))
	return &OpenAI{r: r}, nil
}

// Name implements Provider.
func (o *OpenAI) Name() string { return "openai" }

// Complete implements Provider.
func (o *OpenAI) Complete(ctx context.Context, req Request, onToken func(string)) (Response, error) {
	return o.r.complete(ctx, req, onToken)
}

// openaiProto speaks the chat completions protocol. Servers differ in
// two optional parameters; when one refuses what was sent, adapt switches
// (for the rest of the provider's life) and the call is made again.
type openaiProto struct {
	completionTokens atomic.Bool // send max_completion_tokens, not max_tokens
	noStreamOptions  atomic.Bool // the server refuses stream_options
	noJSONSchema     atomic.Bool // the server refuses response_format json_schema
}

// adapt reacts to a refused request (HTTP 400): a server that does not
// know stream_options is asked without it (usage is then estimated), one
// that refuses response_format json_schema is asked without it (the schema
// is still in the system prompt and enforced on the answer), and
// one that wants max_completion_tokens instead of max_tokens (OpenAI's
// reasoning models behind another host name, such as Azure) gets it. It
// reports whether anything changed.
func (p *openaiProto) adapt(msg string) bool {
	if !strings.HasPrefix(msg, "HTTP 400") {
		return false
	}
	switch {
	case strings.Contains(msg, "stream_options") && !p.noStreamOptions.Load():
		p.noStreamOptions.Store(true)
		return true
	case strings.Contains(msg, "max_completion_tokens") && !p.completionTokens.Load():
		p.completionTokens.Store(true)
		return true
	case (strings.Contains(msg, "response_format") || strings.Contains(msg, "json_schema")) && !p.noJSONSchema.Load():
		// The schema is still stated in the system prompt and the
		// answer is validated here, so nothing is lost but a hint.
		p.noJSONSchema.Store(true)
		return true
	}
	return false
}

type oaMessage struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

type oaRequest struct {
	Model               string      `json:"model"`
	Messages            []oaMessage `json:"messages"`
	Tools               []oaTool    `json:"tools,omitempty"`
	Stream              bool        `json:"stream"`
	StreamOptions       any         `json:"stream_options,omitempty"`
	Temperature         *float64    `json:"temperature,omitempty"`
	MaxTokens           int         `json:"max_tokens,omitempty"`
	MaxCompletionTokens int         `json:"max_completion_tokens,omitempty"`
	Seed                *int64      `json:"seed,omitempty"`
	ResponseFormat      any         `json:"response_format,omitempty"`
}

// emptyObjectSchema is the parameters of a tool declared without a schema.
func emptyObjectSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

func (p *openaiProto) body(req Request, model string) ([]byte, error) {
	out := oaRequest{Model: model, Stream: true, Temperature: req.Temperature}
	if !p.noStreamOptions.Load() {
		out.StreamOptions = map[string]bool{"include_usage": true}
	}
	if req.MaxTokens > 0 {
		if p.completionTokens.Load() {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			out.MaxTokens = req.MaxTokens
		}
	}
	if req.Seed != 0 {
		seed := req.Seed
		out.Seed = &seed
	}
	if sys := instructions(req); sys != "" {
		out.Messages = append(out.Messages, oaMessage{Role: RoleSystem, Content: &sys})
	}
	for _, m := range req.Messages {
		msg := oaMessage{Role: m.Role, ToolCallID: m.ToolCallID}
		content := m.Content
		msg.Content = &content
		if m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
			if content == "" {
				msg.Content = nil
			}
			for _, tc := range m.ToolCalls {
				var c oaToolCall
				c.ID, c.Type = tc.ID, "function"
				c.Function.Name = tc.Name
				c.Function.Arguments = string(tc.Args)
				if c.Function.Arguments == "" {
					c.Function.Arguments = "{}"
				}
				msg.ToolCalls = append(msg.ToolCalls, c)
			}
		}
		out.Messages = append(out.Messages, msg)
	}
	for _, t := range req.Tools {
		var d oaTool
		d.Type = "function"
		d.Function.Name, d.Function.Description, d.Function.Parameters = t.Name, t.Description, t.Schema
		if d.Function.Parameters == nil {
			d.Function.Parameters = emptyObjectSchema()
		}
		out.Tools = append(out.Tools, d)
	}
	if req.OutputSchema != nil && !p.noJSONSchema.Load() {
		// Not strict: strict mode accepts only a subset of JSON Schema
		// (every property required, no additionalProperties), and the
		// answer is validated here anyway.
		out.ResponseFormat = map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "output", "schema": req.OutputSchema, "strict": false}}
	}
	return marshalBody(out)
}

func (p *openaiProto) header(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// oaChunk is one streamed chunk of a chat completion. Reasoning arrives
// as reasoning_content (DeepSeek, Qwen, Kimi, vLLM) or reasoning (Ollama,
// OpenRouter); it is counted, never shown.
type oaChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			Refusal          *string `json:"refusal"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func (p *openaiProto) decode(events *sseReader, res *streamResult, emit func(string)) error {
	var args []*strings.Builder
	slot := map[int]int{} // tool call index → position in res.toolCalls
	refusal := ""
	think := &thinkFilter{}
	text := func(s string) {
		if s != "" {
			res.text.WriteString(s)
			emit(s)
		}
	}
	defer func() {
		text(think.flush())
		res.reasoning += think.reasoning
		for i, b := range args {
			res.toolCalls[i].Args = json.RawMessage(b.String())
		}
	}()
	for {
		ev, err := events.Next()
		if errors.Is(err, io.EOF) {
			break // without [DONE] or a finish reason, finish reports it
		}
		if err != nil {
			return err
		}
		data := strings.TrimSpace(ev.Data)
		if data == "[DONE]" {
			res.done = true
			break
		}
		if data == "" {
			continue
		}
		var c oaChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return failf(false, "the server sent a chunk that is not valid JSON (%v): %s", err, excerpt(data))
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			msg := apiErrorMessage([]byte(`{"error":` + string(c.Error) + `}`))
			if msg == "" {
				msg = excerpt(string(c.Error))
			}
			return failf(true, "the server reported an error in the stream: %s", msg)
		}
		if c.Model != "" {
			res.model = c.Model
		}
		if c.Usage != nil {
			res.usage = Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
			if d := c.Usage.PromptTokensDetails; d != nil {
				res.usage.CacheReadTokens = d.CachedTokens
			}
			res.haveUsage = true
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			d := ch.Delta
			if d.Content != nil {
				text(think.feed(*d.Content))
			}
			if d.ReasoningContent != nil {
				res.reasoning += len([]rune(*d.ReasoningContent))
			}
			if d.Reasoning != nil {
				res.reasoning += len([]rune(*d.Reasoning))
			}
			if d.Refusal != nil {
				refusal += *d.Refusal
			}
			for _, tc := range d.ToolCalls {
				i := -1
				switch {
				case tc.Index != nil:
					if s, ok := slot[*tc.Index]; ok {
						i = s
					}
				case tc.ID == "" && len(res.toolCalls) > 0:
					i = len(res.toolCalls) - 1 // a continuation without index
				}
				if i < 0 || (tc.ID != "" && res.toolCalls[i].ID != "" && tc.ID != res.toolCalls[i].ID) {
					res.toolCalls = append(res.toolCalls, ToolCall{})
					args = append(args, &strings.Builder{})
					i = len(res.toolCalls) - 1
					if tc.Index != nil {
						slot[*tc.Index] = i
					}
				}
				if tc.ID != "" {
					res.toolCalls[i].ID = tc.ID
				}
				if tc.Function.Name != "" {
					res.toolCalls[i].Name += tc.Function.Name
				}
				args[i].WriteString(tc.Function.Arguments)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				res.rawStop = *ch.FinishReason
				switch *ch.FinishReason {
				case "stop":
					res.stop = StopEnd
				case "tool_calls", "function_call":
					res.stop = StopToolCalls
				case "length":
					res.stop = StopMaxTokens
				case "content_filter":
					return failf(false, "the provider's content filter withheld the answer")
				default:
					res.stop = StopEnd
				}
			}
		}
	}
	if refusal != "" {
		return failf(false, "the model refused to answer: %s", excerpt(refusal))
	}
	return nil
}

var _ Provider = (*OpenAI)(nil)

// String keeps the key out of fmt's %v of a provider.
func (o *OpenAI) String() string { return fmt.Sprintf("openai(%s)", o.r.endpoint.Redacted()) }

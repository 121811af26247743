package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentlab/agentlab/canon"
)

// DefaultMockModel is the model name the mock reports when neither the
// request nor the options name one.
const DefaultMockModel = "mock-1"

// Mock is the deterministic built-in provider. Its answer is a pure
// function of the seed and the request: the same seed and request give
// byte-identical responses on every machine; a different seed usually gives
// a different wording. It needs no network and no key, which is what lets
// every flow run, and every run be reproduced, on a fresh machine.
//
// What it answers, in order of precedence:
//   - tools offered and no tool result yet: one call of one tool (a
//     db_query tool when offered, its SQL written from the question's
//     keywords — see mocksql.go — else "SELECT * FROM <source> LIMIT 5");
//   - labels: exactly one label;
//   - an output schema: JSON valid against it (cited fields cite row 0 of
//     the latest query result, see mockcite.go);
//   - a judge call: one of Verdicts;
//   - a report call: a narrative whose numbers are all citation markers;
//   - otherwise: a short answer restating the question's key words.
type Mock struct {
	opts Options
}

// NewMock returns the mock provider.
func NewMock(opts Options) *Mock { return &Mock{opts: opts} }

// Name implements Provider.
func (m *Mock) Name() string { return "mock" }

// Seed returns the seed that governs req: Request.Seed when set, else
// the provider's.
func (m *Mock) Seed(req Request) int64 {
	if req.Seed != 0 {
		return req.Seed
	}
	return m.opts.Seed
}

// PermissionGateNode is the node id under which the permission gate's
// calls are made (run.GateNode).
const PermissionGateNode = "permission-gate"

// Complete implements Provider.
func (m *Mock) Complete(ctx context.Context, req Request, onToken func(string)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	seed := m.Seed(req)
	material, err := requestMaterial(req)
	if err != nil {
		return Response{}, &CallError{Provider: m.Name(), Node: req.Node, Call: req.Call, Message: err.Error()}
	}
	r := newRNG(seed, material)
	resp := Response{Model: req.Model, StopReason: StopEnd}
	if resp.Model == "" {
		resp.Model = m.opts.Model
	}
	if resp.Model == "" {
		resp.Model = DefaultMockModel
	}
	question := lastUser(req.Messages)
	result, resultTool, hasResult := lastToolResult(req.Messages)
	var text string
	switch {
	case len(req.Tools) > 0 && !hasResult:
		tc, err := toolCall(r, req)
		if err != nil {
			return Response{}, &CallError{Provider: m.Name(), Node: req.Node, Call: req.Call, Message: err.Error()}
		}
		resp.ToolCalls = []ToolCall{tc}
		resp.StopReason = StopToolCalls
	case req.Node == PermissionGateNode && len(req.Labels) > 0:
		// The permission gate decides by the seed (and the call's number)
		// only: words in the arguments ("allow") must not steer it.
		text = req.Labels[newRNG(seed, []byte(fmt.Sprintf("%s:%d", PermissionGateNode, req.Call))).intn(len(req.Labels))]
	case len(req.Labels) > 0:
		text = pickLabel(r, req.Labels, question)
	case req.OutputSchema != nil:
		verdict := ""
		if req.Kind == KindJudge {
			verdict = judgeVerdict(r)
		}
		snap, hasSnap := latestSnapshot(req.Messages)
		text, err = generateJSON(r, req.OutputSchema, func(g *schemaGen) {
			g.topic = keyWords(question, false)
			if verdict != "" {
				g.prefer = preferVerdict(verdict)
			}
			if hasSnap {
				g.override = citeOverride(g, snap)
			}
		})
		if err != nil {
			return Response{}, &CallError{Provider: m.Name(), Node: req.Node, Call: req.Call, Message: err.Error()}
		}
	case req.Kind == KindJudge:
		text = judgeVerdict(r)
	case req.Kind == KindReport:
		text = reportText(r, req, seed)
	default:
		text = plainAnswer(r, question, false)
		if hasResult {
			text = toolPreamble(resultTool, result, mostlyCJK(question)) + text
		}
		if cut, ok := truncateTokens(text, req.MaxTokens); ok {
			text, resp.StopReason = cut, StopMaxTokens
		}
	}
	resp.Text = text
	if err := stream(ctx, text, onToken); err != nil {
		return Response{}, err
	}
	resp.Usage = Usage{InputTokens: InputTokens(req), OutputTokens: OutputTokens(resp)}
	return resp, nil
}

// toolPreamble opens the answer that follows a tool result.
func toolPreamble(tool string, result Message, zh bool) string {
	if tool == "" {
		tool = "tool"
	}
	if zh {
		return fmt.Sprintf("已获得 %s 的结果。", tool)
	}
	if result.Content == "" {
		return fmt.Sprintf("The %s call returned no content. ", tool)
	}
	return fmt.Sprintf("The %s call returned its result. ", tool)
}

// requestMaterial is the canonical JSON of req (without its seed) that,
// with the effective seed, seeds the mock. Tool
// call arguments that are not valid JSON are encoded as strings, so a
// malformed history still has a stable encoding.
func requestMaterial(req Request) ([]byte, error) {
	msgs := make([]Message, len(req.Messages))
	for i, msg := range req.Messages {
		msgs[i] = msg
		if len(msg.ToolCalls) == 0 {
			continue
		}
		tcs := make([]ToolCall, len(msg.ToolCalls))
		for j, tc := range msg.ToolCalls {
			if len(tc.Args) > 0 && !json.Valid(tc.Args) {
				quoted, _ := json.Marshal(string(tc.Args))
				tc.Args = quoted
			}
			tcs[j] = tc
		}
		msgs[i].ToolCalls = tcs
	}
	req.Messages = msgs
	req.Seed = 0 // the effective seed is hashed separately
	b, err := canon.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("request cannot be encoded as JSON: %w", err)
	}
	return b, nil
}

// InputTokens estimates what req costs as model input: system prompt,
// messages, tool declarations and output schema.
func InputTokens(req Request) int {
	n := EstimateTokens(req.System)
	for _, msg := range req.Messages {
		n += EstimateTokens(msg.Content) + 1
		for _, tc := range msg.ToolCalls {
			n += EstimateTokens(tc.Name) + EstimateTokens(string(tc.Args))
		}
	}
	for _, t := range req.Tools {
		n += EstimateTokens(t.Name) + EstimateTokens(t.Description)
		if b, err := canon.Marshal(t.Schema); err == nil && t.Schema != nil {
			n += EstimateTokens(string(b))
		}
	}
	if req.OutputSchema != nil {
		if b, err := canon.Marshal(req.OutputSchema); err == nil {
			n += EstimateTokens(string(b))
		}
	}
	return n
}

// OutputTokens estimates what resp costs as model output.
func OutputTokens(resp Response) int {
	n := EstimateTokens(resp.Text)
	for _, tc := range resp.ToolCalls {
		n += EstimateTokens(tc.Name) + EstimateTokens(string(tc.Args))
	}
	return n
}

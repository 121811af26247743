package run

import (
	"context"
	"errors"

	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/runlog"
)

// recorder lets the engine write through a runlog.Run.
type recorder struct{ rl *runlog.Run }

func (r recorder) Append(typ, node string, data any) error {
	_, err := r.rl.Append(typ, node, data)
	return err
}

func (r recorder) AppendBatch(evs []engine.Event) error {
	ps := make([]runlog.Pending, len(evs))
	for i, e := range evs {
		ps[i] = runlog.Pending{Type: e.Type, Node: e.Node, Data: e.Data}
	}
	_, err := r.rl.AppendBatch(ps)
	return err
}

func (r recorder) PutArtifact(b []byte) (hashid.ID, error) { return r.rl.PutArtifact(b) }

// model lets the engine call a provider.Provider.
type model struct{ p provider.Provider }

func (m model) Complete(ctx context.Context, req engine.ModelRequest, onToken func(string)) (engine.ModelResponse, error) {
	msgs := make([]provider.Message, len(req.Messages))
	for i, x := range req.Messages {
		msgs[i] = provider.Message{Role: x.Role, Content: x.Content, ToolCallID: x.ToolCallID, IsError: x.IsError}
		for _, tc := range x.ToolCalls {
			msgs[i].ToolCalls = append(msgs[i].ToolCalls, provider.ToolCall{ID: tc.ID, Name: tc.Name, Args: tc.Args})
		}
	}
	var decls []provider.ToolDecl
	for _, d := range req.Tools {
		decls = append(decls, provider.ToolDecl{Name: d.Name, Description: d.Description, Schema: d.Schema})
	}
	if hook := engine.RetryHook(ctx); hook != nil {
		ctx = provider.WithRetryObserver(ctx, func(ri provider.RetryInfo) {
			hook(engine.ProviderRetry{Node: ri.Node, Call: ri.Call, Attempt: ri.Attempt, Wait: ri.Wait, Status: ri.Status, Reason: ri.Reason})
		})
	}
	resp, err := m.p.Complete(ctx, provider.Request{
		Node: req.Node, Call: req.Call, Kind: req.Kind, Model: req.Model,
		System: req.System, Messages: msgs, OutputSchema: req.OutputSchema,
		Labels: req.Labels, Temperature: req.Temperature, MaxTokens: req.MaxTokens, Seed: req.Seed,
		Tools: decls, Evidence: providerEvidence(req.Evidence),
	}, onToken)
	if err != nil {
		var ce *provider.CallError
		if errors.As(err, &ce) && !ce.Retryable {
			err = engine.Permanent(err)
		}
		u := provider.BilledUsage(err)
		return engine.ModelResponse{}, engine.WithUsage(err, engine.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD, CostUnknown: u.CostUnknown})
	}
	out := engine.ModelResponse{
		Text: resp.Text, Model: resp.Model,
		Usage: engine.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, CostUSD: resp.Usage.CostUSD, CostUnknown: resp.Usage.CostUnknown},
	}
	for _, tc := range resp.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, engine.ToolCall{ID: tc.ID, Name: tc.Name, Args: tc.Args})
	}
	return out, nil
}

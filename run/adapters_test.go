package run

import (
	"context"
	"testing"

	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/provider"
)

// fixedProvider answers every call with one response.
type fixedProvider struct{ resp provider.Response }

func (fixedProvider) Name() string { return "fixed" }
func (f fixedProvider) Complete(context.Context, provider.Request, func(string)) (provider.Response, error) {
	return f.resp, nil
}

// The adapter keeps every part of the usage: an unpriced call must reach
// the engine as cost unknown, not as free.
func TestModelAdapterKeepsUsage(t *testing.T) {
	for _, unknown := range []bool{false, true} {
		m := model{p: fixedProvider{provider.Response{Text: "hi", Usage: provider.Usage{InputTokens: 3, OutputTokens: 4, CostUSD: 0.5, CostUnknown: unknown}}}}
		got, err := m.Complete(context.Background(), engine.ModelRequest{Node: "n"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.Usage{InputTokens: 3, OutputTokens: 4, CostUSD: 0.5, CostUnknown: unknown}
		if got.Usage != want {
			t.Errorf("usage %+v, want %+v", got.Usage, want)
		}
	}
}

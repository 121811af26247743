package run

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/run/engine"
)

// TestIssuanceOf: the run's tier is the worst contract verdict, and its
// reasons are those of the outputs that are not formal (prefixed with the
// node when several outputs carry a contract, without duplicates).
func TestIssuanceOf(t *testing.T) {
	fin := func(node, tier string, reasons ...string) chain.Event {
		d := map[string]any{"output": map[string]any{}}
		if tier != "" {
			d["contract"] = map[string]any{"tier": tier, "issuance": map[string]any{"tier": tier, "reasons": reasons}}
		}
		b, _ := json.Marshal(d)
		return chain.Event{Type: engine.EvNodeFinished, Node: node, Data: b}
	}
	for name, tc := range map[string]struct {
		events  []chain.Event
		tier    string
		reasons string
	}{
		"no contract": {[]chain.Event{fin("o", "")}, "", "[]"},
		"formal":      {[]chain.Event{fin("o", "formal")}, "formal", "[]"},
		"degraded":    {[]chain.Event{fin("o", "degraded", "a", "b")}, "degraded", "[a b]"},
		"two outputs": {[]chain.Event{fin("a", "formal"), fin("b", "withheld", "x"), fin("c", "degraded", "y")}, "withheld",
			"[output b: x output c: y]"},
		"repeated": {[]chain.Event{fin("o", "degraded", "a"), fin("o", "degraded", "a")}, "degraded", "[a]"},
	} {
		t.Run(name, func(t *testing.T) {
			tier, reasons := issuanceOf(tc.events)
			if tier != tc.tier || fmt.Sprint(reasons) != tc.reasons {
				t.Errorf("got %q %v, want %q %s", tier, reasons, tc.tier, tc.reasons)
			}
			if tierOf(tc.events) != tier {
				t.Errorf("tierOf = %q", tierOf(tc.events))
			}
		})
	}
}

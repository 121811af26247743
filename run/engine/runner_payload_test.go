package engine

import (
	"bytes"
	"math"
	"testing"

	"github.com/agentlab/agentlab/canon"
)

// TestPayloadCanonicalEqualsMarshal: a node's payload is written exactly
// as canon.Marshal writes it, omitted fields and odd values included.
func TestPayloadCanonicalEqualsMarshal(t *testing.T) {
	type usage struct {
		Tokens int     `json:"tokens"`
		Cost   float64 `json:"cost"`
	}
	for _, p := range []payload{
		{},
		{Output: "text <&> \xff"},
		{Output: map[string]any{"b": 1, "a": []any{1.5, "x", nil, true}}, Vars: map[string]any{"v": "w"}},
		{Output: map[string]any{"u": usage{3, 0.25}}, Nodes: map[string]any{"n": map[string]any{}}, Port: "yes"},
		{Output: []string{"z", "a"}, Vars: map[string]any{}, Nodes: map[string]any{}},
		{Output: map[string]any{"\xffkey": 1, "k": 2}},
		{Output: int64(1) << 60},
	} {
		want, werr := canon.Marshal(p)
		got, gerr := p.canonical()
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Errorf("payload %+v: canonical %s (%v), canon.Marshal %s (%v)", p, got, gerr, want, werr)
		}
	}
	if _, err := (payload{Output: math.Inf(1)}).canonical(); err == nil {
		t.Error("an infinite output must be refused")
	}
}

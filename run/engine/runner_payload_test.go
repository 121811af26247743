package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
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

// TestReadPayloadEqualsUnmarshal: a node's payload read back without
// reflection is what json.Unmarshal reads, for every field and the
// shapes at their edges; anything else is left to json.Unmarshal.
func TestReadPayloadEqualsUnmarshal(t *testing.T) {
	for _, p := range []payload{
		{},
		{Output: "text"},
		{Output: map[string]any{"text": "a\nb", "n": 1.5, "list": []any{1, nil, true}}, Vars: map[string]any{"v": map[string]any{}}, Nodes: map[string]any{"a": 1}, Port: "yes"},
		{Output: []any{}, Vars: map[string]any{"x": nil}},
		{Output: nil, Port: "p"},
	} {
		b, err := p.canonical()
		if err != nil {
			t.Fatal(err)
		}
		var want payload
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := readPayload(b)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %#v (%v), json.Unmarshal %#v", b, got, ok, want)
		}
	}
	for _, b := range []string{`{"output":1,"other":2}`, `{"port":3}`, `{"vars":[1]}`, `[1]`, `{"output": 1}`, `{"nodes":"x"}`} {
		if _, ok := readPayload([]byte(b)); ok {
			t.Errorf("%s: read as a payload; json.Unmarshal must decide", b)
		}
	}
}

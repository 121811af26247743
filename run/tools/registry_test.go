package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fakeTool is a tool with a chosen effect; Depends tools write when
// their "method" argument is not GET.
type fakeTool struct {
	name   string
	effect Effect
	schema map[string]any
	calls  int
}

func (f *fakeTool) Info() Info {
	return Info{Name: f.name, Description: "test", Effect: f.effect, Schema: f.schema}
}

func (f *fakeTool) Call(_ context.Context, args json.RawMessage) (*Result, error) {
	f.calls++
	return &Result{Text: string(args)}, nil
}

type dependsTool struct{ fakeTool }

func (d *dependsTool) EffectOf(args json.RawMessage) Effect {
	var a struct{ Method string }
	_ = json.Unmarshal(args, &a)
	if a.Method == "GET" {
		return Read
	}
	return Write
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{"bad name", &fakeTool{name: "1x", effect: Read}, "is not valid"},
		{"bad name chars", &fakeTool{name: "a b", effect: Read}, "is not valid"},
		{"no effect", &fakeTool{name: "x"}, `effect "" is not one of read, write, depends`},
		{"depends without resolver", &fakeTool{name: "x", effect: Depends}, "cannot tell the effect"},
		{"bad schema", &fakeTool{name: "x", effect: Read, schema: map[string]any{"type": 12}}, "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewRegistry().Register(tt.tool)
			var ref *Refusal
			if !errors.As(err, &ref) || ref.Code != CodeDecl || !strings.Contains(ref.Reason, tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	r := NewRegistry()
	if err := r.Register(&fakeTool{name: "x", effect: Read}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(&fakeTool{name: "x", effect: Read}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("duplicate: %v", err)
	}
}

func TestEffects(t *testing.T) {
	r := NewRegistry()
	reader := &fakeTool{name: "reader", effect: Read}
	writer := &fakeTool{name: "writer", effect: Write}
	dep := &dependsTool{fakeTool{name: "http_any", effect: Depends}}
	for _, tl := range []Tool{reader, writer, dep} {
		if err := r.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	// ForAgent: write tools and unknown names are refused with reasons.
	if got, err := r.ForAgent([]string{"reader", "http_any"}); err != nil || len(got) != 2 {
		t.Errorf("ForAgent(read tools) = %v, %v", got, err)
	}
	_, err := r.ForAgent([]string{"reader", "writer", "readr"})
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Code != CodeEffect ||
		!strings.Contains(ref.Reason, `"writer" writes (effect: write) and agents may only use read tools; call it from a `+"`type: tool`"+` node instead`) ||
		!strings.Contains(ref.Reason, `"readr" is not a known tool (did you mean reader?)`) {
		t.Errorf("ForAgent = %v", err)
	}

	ctx := context.Background()
	tests := []struct {
		name   string
		caller Caller
		tool   string
		args   string
		code   string // "" = allowed
	}{
		{"agent reads", FromAgent, "reader", `{}`, ""},
		{"agent writes", FromAgent, "writer", `{}`, CodeEffect},
		{"tool node writes", FromToolNode, "writer", `{}`, ""},
		{"agent depends read call", FromAgent, "http_any", `{"method":"GET"}`, ""},
		{"agent depends write call", FromAgent, "http_any", `{"method":"DELETE"}`, CodeEffect},
		{"tool node depends write call", FromToolNode, "http_any", `{"method":"DELETE"}`, ""},
		{"unknown", FromToolNode, "nope", `{}`, CodeUnknown},
		{"not an object", FromToolNode, "reader", `[1]`, CodeArgs},
		{"not json", FromToolNode, "reader", `{`, CodeArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Call(ctx, tt.caller, tt.tool, json.RawMessage(tt.args))
			var ref *Refusal
			switch {
			case tt.code == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.code != "" && (!errors.As(err, &ref) || ref.Code != tt.code):
				t.Errorf("err = %v, want %s", err, tt.code)
			}
		})
	}
	if writer.calls != 1 {
		t.Errorf("writer ran %d times; the agent's call must not run it", writer.calls)
	}
	if got := r.Names(); strings.Join(got, ",") != "http_any,reader,writer" {
		t.Errorf("names = %v", got)
	}
	if infos := r.Infos([]string{"writer", "reader"}); len(infos) != 2 || infos[0].Name != "reader" {
		t.Errorf("infos = %v", infos)
	}
}

package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run/provider"
)

// TestMockProgramEndToEnd asks the mock provider for a code-mode call,
// runs the program it wrote, and checks the sub-calls and the printed
// result: a query tool answers, a denied one surfaces in the program as
// a ToolCallError it records.
func TestMockProgramEndToEnd(t *testing.T) {
	tools := []sdk.ToolInfo{
		{Name: "db_query__sales", Description: "Query sales.", Args: map[string]any{"type": "object", "required": []any{"sql"}, "properties": map[string]any{"sql": map[string]any{"type": "string"}}}},
		{Name: "db_query__stock", Description: "Query stock.", Args: map[string]any{"type": "object", "required": []any{"sql"}, "properties": map[string]any{"sql": map[string]any{"type": "string"}}}},
	}
	call := func(ctx context.Context, id, name string, args json.RawMessage) (json.RawMessage, error) {
		if name == "db_query__stock" {
			return nil, errors.New("permission refused: node agent permissions rule 1 denies db_query__stock")
		}
		var a struct{ SQL string }
		_ = json.Unmarshal(args, &a)
		return json.Marshal(map[string]any{"snapshot": "Q1", "sql": a.SQL, "rows": []any{map[string]any{"region": "north", "gmv": 120}}})
	}
	for _, lang := range []string{sdk.LangPython, sdk.LangTypeScript} {
		t.Run(lang, func(t *testing.T) {
			needInterpreter(t, RuntimeLanguage(lang))
			decl, text := Tool(tools, lang)
			resp, err := provider.NewMock(provider.Options{Seed: 3}).Complete(context.Background(), provider.Request{
				Node: "agent", Kind: provider.KindAgent, SDK: text,
				Messages: []provider.Message{{Role: provider.RoleUser, Content: "Compare sales with stock"}},
				Tools:    []provider.ToolDecl{{Name: decl.Name, Description: decl.Description, Schema: decl.Schema}},
			}, nil)
			if err != nil || len(resp.ToolCalls) != 1 {
				t.Fatalf("mock: %+v %v", resp, err)
			}
			code, err := ParseArgs(resp.ToolCalls[0].Args)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Spec{CallID: resp.ToolCalls[0].ID, Language: lang, Program: code,
				Tools: tools, CallTool: call, Dir: workdir(t)})
			if err != nil {
				t.Fatal(err)
			}
			mustOK(t, res)
			var out map[string]any
			if err := json.Unmarshal(res.Output, &out); err != nil {
				t.Fatalf("output %s: %v", res.Output, err)
			}
			stock, _ := out["db_query__stock"].(map[string]any)
			sales, _ := out["db_query__sales"].(map[string]any)
			if !strings.Contains(stock["error"].(string), "denies db_query__stock") || sales["snapshot"] != "Q1" {
				t.Errorf("output = %s", res.Output)
			}
			id := resp.ToolCalls[0].ID
			if len(res.SubCalls) != 2 || res.SubCalls[0].ID != id+":ptc:1" || res.SubCalls[1].ID != id+":ptc:2" || res.SubCalls[1].Error == "" {
				t.Errorf("sub-calls = %+v", res.SubCalls)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct{ in, code, err string }{
		{`{"code":"return 1"}`, "return 1", ""},
		{`{"code":"  "}`, "", "non-empty"},
		{`{}`, "", "non-empty"},
		{`{"code":"x","language":"ruby"}`, "", "unknown field"},
		{`[1]`, "", "run_code takes"},
	}
	for _, tt := range tests {
		code, err := ParseArgs(json.RawMessage(tt.in))
		if code != tt.code || (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: %q, %v", tt.in, code, err)
		}
	}
}

func TestToolDeclCarriesSDK(t *testing.T) {
	for _, lang := range []string{sdk.LangPython, sdk.LangTypeScript} {
		decl, text := Tool((&fakeTools{}).infos(), lang)
		if decl.Name != ToolName || !strings.HasSuffix(decl.Description, text) || !strings.Contains(text, SDKMarker) {
			t.Errorf("%s: decl = %+v", lang, decl)
		}
	}
}

package provider

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMockToolCalls(t *testing.T) {
	sqlSchema := map[string]any{"type": "object", "required": []any{"sql"}, "properties": map[string]any{
		"sql": map[string]any{"type": "string"}, "params": map[string]any{"type": "object"}, "limit": map[string]any{"type": "integer"}}}
	tests := []struct {
		name     string
		tools    []ToolDecl
		question string
		wantName string
		wantArgs string
	}{
		{"db tool preferred", []ToolDecl{{Name: "file_read", Schema: map[string]any{"type": "object", "required": []any{"path"}, "properties": map[string]any{"path": map[string]any{"type": "string"}}}}, {Name: "db_query__sales", Schema: sqlSchema}},
			"How are sales?", "db_query__sales", `{"sql":"SELECT * FROM sales LIMIT 5"}`},
		{"db tool named in question", []ToolDecl{{Name: "db_query__sales", Schema: sqlSchema}, {Name: "db_query__returns", Schema: sqlSchema}},
			"Why did returns rise?", "db_query__returns", `{"sql":"SELECT * FROM returns LIMIT 5"}`},
		{"odd source name quoted", []ToolDecl{{Name: "db_query__my-data", Schema: sqlSchema}},
			"x", "db_query__my-data", `{"sql":"SELECT * FROM \"my-data\" LIMIT 5"}`},
		{"no schema", []ToolDecl{{Name: "db_query__orders"}}, "x", "db_query__orders", `{"sql":"SELECT * FROM orders LIMIT 5"}`},
		{"optional sql picked up", []ToolDecl{{Name: "db_query__orders", Schema: map[string]any{"type": "object", "properties": map[string]any{"sql": map[string]any{"type": "string"}, "note": map[string]any{"type": "string"}}}}},
			"x", "db_query__orders", `{"sql":"SELECT * FROM orders LIMIT 5"}`},
		{"search tool gets the question", []ToolDecl{{Name: "search_docs", Schema: map[string]any{"type": "object", "required": []any{"query", "top_k"}, "properties": map[string]any{
			"query": map[string]any{"type": "string"}, "top_k": map[string]any{"type": "integer", "minimum": 1, "maximum": 1}}}}},
			"refund policy", "search_docs", `{"query":"refund policy","top_k":1}`},
		{"enum argument", []ToolDecl{{Name: "set_mode", Schema: map[string]any{"type": "object", "required": []any{"mode"}, "properties": map[string]any{"mode": map[string]any{"const": "fast"}}}}},
			"x", "set_mode", `{"mode":"fast"}`},
		{"tool named in question", []ToolDecl{{Name: "weather_lookup"}, {Name: "stock_price"}}, "what is the stock price", "stock_price", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Node: "agent", Kind: KindAgent, Tools: tt.tools, Messages: userMsg(tt.question)}
			resp, toks := complete(t, NewMock(Options{}), req)
			if len(resp.ToolCalls) != 1 || resp.StopReason != StopToolCalls || resp.Text != "" || len(toks) != 0 {
				t.Fatalf("want one tool call and no text, got %+v", resp)
			}
			tc := resp.ToolCalls[0]
			if tc.Name != tt.wantName || string(tc.Args) != tt.wantArgs {
				t.Errorf("got %s %s, want %s %s", tc.Name, tc.Args, tt.wantName, tt.wantArgs)
			}
			if !strings.HasPrefix(tc.ID, "call_") || len(tc.ID) != len("call_")+16 {
				t.Errorf("id %q", tc.ID)
			}
		})
	}
}

func TestMockToolArgsConformToSchema(t *testing.T) {
	for name, schema := range loadSchemaCorpus(t) {
		if schema["type"] != "object" {
			continue
		}
		sch := independentValidator(t, schema)
		for seed := int64(0); seed < 10; seed++ {
			req := Request{Node: "agent", Kind: KindAgent, Seed: seed, Tools: []ToolDecl{{Name: "custom_" + name, Schema: schema}}, Messages: userMsg("go")}
			resp, _ := complete(t, NewMock(Options{}), req)
			var v any
			if err := json.Unmarshal(resp.ToolCalls[0].Args, &v); err != nil {
				t.Fatalf("%s: args not JSON: %s", name, resp.ToolCalls[0].Args)
			}
			inst, _ := json.Marshal(v)
			if err := sch.Validate(mustUnmarshal(t, inst)); err != nil {
				t.Errorf("%s seed %d: args %s invalid: %v", name, seed, inst, err)
			}
		}
	}
}

func TestMockAfterToolResult(t *testing.T) {
	history := []Message{
		{Role: RoleUser, Content: "How are weekly sales?"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "db_query__sales", Args: json.RawMessage(`{"sql":"SELECT * FROM sales LIMIT 5"}`)}}},
		{Role: RoleTool, ToolCallID: "c1", Content: `{"columns":["region"],"rows":[["north"]]}`},
	}
	tools := []ToolDecl{{Name: "db_query__sales"}}
	resp, _ := complete(t, NewMock(Options{}), Request{Node: "agent", Kind: KindAgent, Tools: tools, Messages: history})
	if len(resp.ToolCalls) != 0 || resp.StopReason != StopEnd || !strings.Contains(resp.Text, "db_query__sales") || !strings.Contains(resp.Text, "weekly") {
		t.Errorf("want a text answer naming the tool and the question, got %+v", resp)
	}
	schema := map[string]any{"type": "object", "required": []any{"answer"}, "properties": map[string]any{"answer": map[string]any{"type": "string"}}}
	resp, _ = complete(t, NewMock(Options{}), Request{Node: "agent", Kind: KindAgent, Tools: tools, Messages: history, OutputSchema: schema})
	var out map[string]string
	if err := json.Unmarshal([]byte(resp.Text), &out); err != nil || out["answer"] == "" {
		t.Errorf("want schema JSON after the tool result, got %q", resp.Text)
	}
}

func mustUnmarshal(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

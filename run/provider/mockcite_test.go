package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

// citedSchema is an output schema in the form the engine gives an agent
// with cite_fields: every field is {value, source}, source an enum of
// cells.
func citedSchema(fields map[string]string, cells []any) map[string]any {
	props := map[string]any{}
	var req []any
	for name, typ := range fields {
		src := map[string]any{"type": "string", "description": "the snapshot cell the value was read from, as Q<n>.r<row>.<column>"}
		if cells != nil {
			src["enum"] = cells
		}
		props[name] = map[string]any{"type": "object", "required": []any{"value", "source"}, "additionalProperties": false,
			"properties": map[string]any{"value": map[string]any{"type": typ}, "source": src}}
		req = append(req, name)
	}
	return map[string]any{"type": "object", "properties": props, "required": req}
}

func TestMockCitesItsOwnResult(t *testing.T) {
	history := []Message{
		{Role: RoleUser, Content: "Which store had the highest revenue, and how many staff does it have?"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "db_query__stores", Args: json.RawMessage(`{"sql":"SELECT * FROM stores"}`)}}},
		{Role: RoleTool, ToolCallID: "c1", Content: `{"snapshot":"Q1","columns":["store","staff","revenue"],"rows":[["s01",12,1.5],["s02",9,2.5]]}`},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c2", Name: "db_query__stores", Args: json.RawMessage(`{"sql":"SELECT store, staff FROM stores ORDER BY revenue DESC LIMIT 1"}`)}}},
		{Role: RoleTool, ToolCallID: "c2", Content: `{"snapshot":"Q2","columns":["store","staff"],"rows":[["s04",15]],"truncated":false}`},
	}
	fields := map[string]string{"store": "string", "staff": "integer", "revenue": "number"}
	tests := []struct {
		name  string
		cells []any
		want  map[string]any // field → source; value checked separately
	}{
		{"description only", nil, map[string]any{"store": "Q2.r0.store", "staff": "Q2.r0.staff", "revenue": "Q2.r0.store"}},
		{"enum of the latest result", []any{"Q2.r0.store", "Q2.r0.staff"}, map[string]any{"store": "Q2.r0.store", "staff": "Q2.r0.staff", "revenue": "Q2.r0.store"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, seed := range []int64{1, 2, 3} {
				req := Request{Node: "agent", Kind: KindAgent, Seed: seed, Messages: history, OutputSchema: citedSchema(fields, tt.cells),
					Tools: []ToolDecl{{Name: "db_query__stores"}}}
				resp, _ := complete(t, NewMock(Options{}), req)
				var out map[string]map[string]any
				if err := json.Unmarshal([]byte(resp.Text), &out); err != nil {
					t.Fatalf("not JSON: %s", resp.Text)
				}
				got := map[string]any{}
				for k, v := range out {
					got[k] = v["source"]
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("seed %d: sources %v, want %v", seed, got, tt.want)
				}
				if out["store"]["value"] != "s04" || out["staff"]["value"] != float64(15) {
					t.Errorf("seed %d: values %v, want the cells' values", seed, out)
				}
				if _, isNum := out["revenue"]["value"].(float64); !isNum {
					t.Errorf("seed %d: a text cell cited for a number field must leave a generated number, got %v", seed, out["revenue"])
				}
			}
		})
	}
}

func TestMockCiteFallsBack(t *testing.T) {
	fields := map[string]string{"staff": "integer"}
	// An enum that does not offer row 0 of the latest result: the
	// generator picks from the enum.
	history := []Message{
		{Role: RoleUser, Content: "q"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "db_query__s"}}},
		{Role: RoleTool, ToolCallID: "c1", Content: `{"snapshot":"Q1","columns":["staff"],"rows":[[3],[4]]}`},
	}
	resp, _ := complete(t, NewMock(Options{}), Request{Node: "agent", Kind: KindAgent, Messages: history, Tools: []ToolDecl{{Name: "db_query__s"}},
		OutputSchema: citedSchema(fields, []any{"Q1.r1.staff"})})
	var out map[string]map[string]any
	if err := json.Unmarshal([]byte(resp.Text), &out); err != nil || out["staff"]["source"] != "Q1.r1.staff" {
		t.Errorf("got %s", resp.Text)
	}
	// No snapshot (an error result): a schema JSON all the same.
	history[2].Content = "error: refused"
	resp, _ = complete(t, NewMock(Options{}), Request{Node: "agent", Kind: KindAgent, Messages: history, Tools: []ToolDecl{{Name: "db_query__s"}},
		OutputSchema: citedSchema(fields, nil)})
	if err := json.Unmarshal([]byte(resp.Text), &out); err != nil || out["staff"]["source"] == nil {
		t.Errorf("got %s", resp.Text)
	}
}

package sources

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/evidence"
)

// ToolPrefix starts the name of every source's query tool.
const ToolPrefix = "db_query__"

// ToolInfo describes one db_query tool to a model: its name, a description
// that lists the tables and their typed columns, and the JSON Schema of its
// arguments.
type ToolInfo struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Schema      map[string]any `json:"schema"`
}

// Tools returns one tool per source, sorted by name. The text depends only
// on the sources, so the same flow and data give byte-identical tool
// declarations (and prompts) on every machine.
func (db *DB) Tools() []ToolInfo {
	out := make([]ToolInfo, 0, len(db.keys))
	for _, k := range db.keys {
		s, ok := db.sources[k]
		if !ok {
			continue
		}
		out = append(out, ToolInfo{Name: ToolPrefix + k, Description: s.describe(), Schema: argsSchema()})
	}
	return out
}

func (s *source) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Query the data source %q with one read-only SQLite statement (SELECT, WITH … SELECT or VALUES). ", s.key)
	if len(s.tables) == 1 {
		b.WriteString("Table: ")
	} else {
		b.WriteString("Tables: ")
	}
	masked := false
	for i, t := range s.tables {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(t.Name + "(")
		for j, c := range t.Columns {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.Name + " " + c.Type)
			if c.Masked {
				b.WriteString(" masked")
				masked = true
			}
		}
		b.WriteString(")")
	}
	b.WriteString(". Put values in params and refer to them as :name in the SQL; never paste values into the SQL text.")
	if masked {
		b.WriteString(" Masked columns can be filtered and grouped on, but their values come back as \"***\".")
	}
	b.WriteString(" Results are capped in rows; a cut-off result says truncated: aggregate in SQL instead of fetching raw rows.")
	return b.String()
}

func argsSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"sql": map[string]any{"type": "string", "description": "one SELECT, WITH … SELECT or VALUES statement; :name marks a parameter"},
			"params": map[string]any{
				"type":                 "object",
				"description":          "a value for every :name parameter in the SQL",
				"additionalProperties": map[string]any{"type": []any{"string", "number", "integer", "boolean", "null"}},
			},
		},
		"required":             []any{"sql"},
		"additionalProperties": false,
	}
}

// Call runs a db_query tool call: tool is "db_query__<source>", args the
// decoded {sql, params} object.
func (db *DB) Call(ctx context.Context, tool string, args map[string]any, rowCap int) (*evidence.Snapshot, error) {
	source, ok := strings.CutPrefix(tool, ToolPrefix)
	if !ok {
		return nil, &QueryError{Source: tool, Code: CodeSource, Reason: fmt.Sprintf("%q is not a db_query tool", tool),
			Fix: "call a tool named " + ToolPrefix + "<source>"}
	}
	sqlText, ok := args["sql"].(string)
	if !ok {
		return nil, &QueryError{Source: source, Code: CodeArgs, Reason: "the argument sql is missing or not a string",
			Fix: `call it with {"sql": "SELECT …", "params": {…}}`}
	}
	var params map[string]any
	if p, has := args["params"]; has && p != nil {
		params, ok = p.(map[string]any)
		if !ok {
			return nil, &QueryError{Source: source, Code: CodeArgs, Reason: "the argument params is not an object",
				Fix: `pass params as an object: {"week": "2026-W47"}`}
		}
	}
	for k := range args {
		if k != "sql" && k != "params" {
			return nil, &QueryError{Source: source, Code: CodeArgs, Reason: fmt.Sprintf("unknown argument %q", k),
				Fix: "pass only sql and params"}
		}
	}
	return db.Query(ctx, source, sqlText, params, rowCap)
}

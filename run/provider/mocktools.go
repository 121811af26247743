package provider

import (
	"encoding/json"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// DBToolPrefix starts the name of every tool that queries a flow source.
const DBToolPrefix = "db_query__"

var plainIdent = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// chooseTool picks the tool the mock calls: a db_query tool when there is
// one (its data is what most questions are about), among them the one
// whose name words occur most in the question, ties to the earlier tool.
func chooseTool(tools []ToolDecl, question string) ToolDecl {
	var db []ToolDecl
	for _, t := range tools {
		if strings.HasPrefix(t.Name, DBToolPrefix) {
			db = append(db, t)
		}
	}
	cands := tools
	if len(db) > 0 {
		cands = db
	}
	counts := map[string]int{}
	for _, w := range splitWords(question) {
		counts[w]++
	}
	best, bestScore := cands[0], 0
	for _, t := range cands {
		score := 0
		for _, w := range splitWords(strings.TrimPrefix(t.Name, DBToolPrefix)) {
			if w != "db" && w != "query" {
				score += counts[w]
			}
		}
		if score > bestScore {
			best, bestScore = t, score
		}
	}
	return best
}

// sampleSQL is the query the mock sends to a db_query tool when its
// keyword heuristic (mocksql.go) does not apply: a look at the first rows
// of its source, which every SQL guard accepts.
func sampleSQL(tool string) string {
	src := strings.TrimPrefix(tool, DBToolPrefix)
	if !plainIdent.MatchString(src) {
		src = `"` + strings.ReplaceAll(src, `"`, `""`) + `"`
	}
	return "SELECT * FROM " + src + " LIMIT 5"
}

// toolCall builds the mock's call of one offered tool, its arguments
// generated from the tool's schema: the SQL of a db_query tool and a
// search text for query-like arguments come from the request, the rest
// from the schema (required arguments only).
func toolCall(r *rng, req Request) (ToolCall, error) {
	if tc, ok := ptcToolCall(r, req); ok {
		return tc, nil
	}
	question := lastUser(req.Messages)
	t := chooseTool(req.Tools, question)
	isDB := strings.HasPrefix(t.Name, DBToolPrefix)
	dbSQL := sampleSQL(t.Name)
	var dbParams map[string]any
	if isDB {
		if q, params, ok := heuristicQuery(describedTables(t.Description), question); ok && (params == nil || hasProperty(t.Schema, "params")) {
			dbSQL, dbParams = q, params
		}
	}
	override := func(name string, s map[string]any) (any, bool) {
		if isDB && dbParams != nil && name == "params" {
			return dbParams, true
		}
		if typ, ok := s["type"].(string); ok && typ != "string" {
			return nil, false
		}
		if _, ok := s["enum"]; ok {
			return nil, false
		}
		switch strings.ToLower(name) {
		case "sql", "statement":
			if isDB {
				return dbSQL, true
			}
		case "query", "q", "question", "search", "text", "prompt":
			if isDB && strings.ToLower(name) == "query" {
				return dbSQL, true
			}
			if question != "" {
				return truncateRunes(question, 200), true
			}
		}
		return nil, false
	}
	schema := t.Schema
	if len(schema) == 0 {
		schema = map[string]any{"type": "object"}
		if isDB {
			schema = map[string]any{"type": "object", "properties": map[string]any{"sql": map[string]any{"type": "string"}}, "required": []any{"sql"}}
		}
	}
	args, err := generateJSON(r, schema, func(g *schemaGen) {
		g.requiredOnly = true
		g.override = override
		g.topic = keyWords(question, false)
	})
	if err != nil {
		return ToolCall{}, err
	}
	if !strings.HasPrefix(args, "{") { // a schema that is not an object schema
		args = "{}"
	}
	return ToolCall{ID: "call_" + r.hex(16), Name: t.Name, Args: json.RawMessage(args)}, nil
}

// hasProperty reports whether an object schema declares property name.
func hasProperty(schema map[string]any, name string) bool {
	props, _ := schema["properties"].(map[string]any)
	_, ok := props[name]
	return ok
}

func truncateRunes(s string, n int) string {
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n])
	}
	return s
}

package provider

import (
	"encoding/json"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// When an agent's output schema asks for cited fields (cite_fields: every
// field is {value, source}, source a snapshot cell "Q<n>.r<row>.<column>"),
// the mock cites its own latest query result rather than cells chosen by
// seed: row 0 — the answer of a "highest …" or aggregate query — of the
// field's own column, else of the result's first column (the column the
// question asked for), with the cell's value. Where the schema's enum of
// cells or the value's type rules that out, the field is generated as any
// other.

// mockSnapshot is the part of a db_query tool result the mock reads.
type mockSnapshot struct {
	ID      string   `json:"snapshot"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

var citeRef = lazyre.New(`^Q[0-9]+\.r[0-9]+\.`)

// latestSnapshot returns the last tool result in msgs that is a query
// snapshot with at least one row.
func latestSnapshot(msgs []Message) (mockSnapshot, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != RoleTool || !strings.HasPrefix(strings.TrimSpace(msgs[i].Content), "{") {
			continue
		}
		var s mockSnapshot
		d := json.NewDecoder(strings.NewReader(msgs[i].Content))
		d.UseNumber()
		if d.Decode(&s) != nil || !snapshotID.MatchString(s.ID) || len(s.Columns) == 0 || len(s.Rows) == 0 {
			continue
		}
		return s, true
	}
	return mockSnapshot{}, false
}

// citeOverride returns the schemaGen override that fills cited fields
// from snap; other properties are left to the generator.
func citeOverride(g *schemaGen, snap mockSnapshot) func(string, map[string]any) (any, bool) {
	return func(name string, s map[string]any) (any, bool) {
		props, _ := s["properties"].(map[string]any)
		if len(props) != 2 || props["value"] == nil || props["source"] == nil {
			return nil, false
		}
		src, _ := props["source"].(map[string]any)
		enum, hasEnum := src["enum"].([]any)
		if !hasEnum && !strings.Contains(strings.ToLower(asString(src["description"])), "snapshot cell") {
			return nil, false
		}
		col := -1
		for j, c := range snap.Columns {
			if strings.EqualFold(c, name) {
				col = j
				break
			}
		}
		var cands []int
		if col >= 0 {
			cands = append(cands, col)
		}
		cands = append(cands, 0)
		for _, j := range cands {
			ref := snap.ID + ".r0." + snap.Columns[j]
			if hasEnum && !containsAny(enum, ref) {
				continue
			}
			var cell any
			if j < len(snap.Rows[0]) {
				cell = snap.Rows[0][j]
			}
			vs, _ := props["value"].(map[string]any)
			v, ok := cellFits(cell, vs)
			if !ok {
				v = g.gen(props["value"], name, 1)
			}
			return map[string]any{"value": v, "source": ref}, true
		}
		return nil, false
	}
}

// cellFits returns cell as a value of schema s's declared type, when it
// is one.
func cellFits(cell any, s map[string]any) (any, bool) {
	types := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		types[t] = true
	case []any:
		for _, x := range t {
			if ts, ok := x.(string); ok {
				types[ts] = true
			}
		}
	default:
		return nil, false
	}
	switch c := cell.(type) {
	case json.Number:
		if n, err := c.Int64(); err == nil && (types["integer"] || types["number"]) {
			return n, true
		}
		if f, err := c.Float64(); err == nil && types["number"] {
			return f, true
		}
	case string:
		if types["string"] {
			return c, true
		}
	case bool:
		if types["boolean"] {
			return c, true
		}
	case nil:
		if types["null"] {
			return nil, true
		}
	}
	return nil, false
}

func containsAny(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

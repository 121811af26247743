package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// CodeCite marks a node.warning about a cited field whose value did not
// match its snapshot cell, or whose citation names no cell.
const CodeCite = "W-AGENT-CITE"

// citePattern is the form of a cell citation: Q<n>.r<row>.<column>.
var citePattern = lazyre.New(`^(Q[0-9]+)\.r([0-9]+)\.(.+)$`)

// maxCiteEnum bounds the cells listed in a citation's enum; beyond it the
// schema gives the pattern only.
const maxCiteEnum = 200

// citeSchema rewrites an object output_schema for cite_fields: every
// top-level field becomes {value, source}, where source names the snapshot
// cell the value was read from. When the loop has snapshots, source is an
// enum of their cells (those of the field's own column when there are
// any), so that a model — the mock included — can only name real cells.
//
// The answer is validated against the same schema without the enums
// (lenient): a citation of an unknown cell is not a schema violation but
// a null value with a warning (checkCitations).
func citeSchema(orig map[string]any, r *runner, snapIDs []string, lenient bool) map[string]any {
	props, ok := orig["properties"].(map[string]any)
	if !ok {
		return orig
	}
	cells := citeCells(r, snapIDs)
	out := map[string]any{}
	for k, v := range orig {
		out[k] = v
	}
	np := map[string]any{}
	for name, ps := range props {
		src := map[string]any{"type": "string",
			"description": "the snapshot cell the value was read from, as Q<n>.r<row>.<column>"}
		var mine []any
		for _, c := range cells {
			if strings.EqualFold(c[1], name) {
				mine = append(mine, c[0])
			}
		}
		if len(mine) == 0 {
			for _, c := range cells {
				mine = append(mine, c[0])
			}
		}
		if !lenient && len(mine) > 0 && len(mine) <= maxCiteEnum {
			src["enum"] = mine
		}
		np[name] = map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"value": ps, "source": src},
			"required":             []any{"value", "source"},
			"additionalProperties": false,
		}
	}
	out["properties"] = np
	return out
}

// citeCells lists the cells of the given snapshots as [citation, column].
func citeCells(r *runner, ids []string) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		s, ok := r.snapshot(id)
		if !ok {
			continue
		}
		for i := range s.Rows {
			for _, c := range s.Columns {
				out = append(out, [2]string{fmt.Sprintf("%s.r%d.%s", id, i, c), c})
			}
		}
	}
	return out
}

// checkCitations checks every cited field of v against the run's
// snapshots. The snapshot wins: a value that differs from its cell is
// replaced by the cell's value, and a citation that names no cell (or a
// field without one) gets the value null — never 0 — with a warning each.
func checkCitations(v any, r *runner) (any, []string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return v, []string{"the answer is not an object, so its fields cannot be checked against the snapshots"}
	}
	var warns []string
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]any{}
	for _, k := range keys {
		f, _ := obj[k].(map[string]any)
		src, _ := f["source"].(string)
		cell, found, why := resolveCell(r, src)
		switch {
		case f == nil:
			warns = append(warns, fmt.Sprintf("field %q does not name the snapshot cell it came from; its value is null", k))
			out[k] = map[string]any{"value": nil, "source": nil}
		case !found:
			warns = append(warns, fmt.Sprintf("field %q cites %q, %s; its value is null", k, src, why))
			out[k] = map[string]any{"value": nil, "source": src}
		default:
			if !sameValue(f["value"], cell) {
				warns = append(warns, fmt.Sprintf("field %q said %v but its cell %s holds %v; the snapshot's value is used", k, f["value"], src, cell))
			}
			out[k] = map[string]any{"value": cell, "source": src}
		}
	}
	return out, warns
}

// resolveCell reads the cell a citation names.
func resolveCell(r *runner, src string) (any, bool, string) {
	m := citePattern.FindStringSubmatch(src)
	if m == nil {
		return nil, false, "which is not of the form Q<n>.r<row>.<column>"
	}
	s, ok := r.snapshot(m[1])
	if !ok {
		return nil, false, fmt.Sprintf("but the run has no snapshot %s", m[1])
	}
	row, err := strconv.Atoi(m[2])
	if err != nil || row >= len(s.Rows) {
		return nil, false, fmt.Sprintf("but snapshot %s has %d rows", m[1], len(s.Rows))
	}
	for j, c := range s.Columns {
		if c == m[3] && j < len(s.Rows[row]) {
			return s.Rows[row][j], true, ""
		}
	}
	return nil, false, fmt.Sprintf("but snapshot %s has no column %q", m[1], m[3])
}

// sameValue compares a model's value with a cell, numbers by value.
func sameValue(a, b any) bool {
	fa, aok := number(a)
	fb, bok := number(b)
	if aok && bok {
		return fa == fb
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && (a == nil) == (b == nil)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

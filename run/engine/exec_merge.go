package engine

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/run/sqlguard"
	_ "modernc.org/sqlite" // the in-memory database of merge nodes
)

func init() {
	registerExecutor("merge", executor{leaf: true, run: execMerge})
}

// execMerge loads the snapshots of its `inputs` (tool or merge nodes) into
// an in-memory SQLite database, one table per input named after the node,
// and joins them: by `key` (an inner join on that column, rows ordered by
// the key, a non-key column whose name repeats prefixed by its node id) or
// with a given `sql` (one guarded read-only statement). A truncated input
// is refused: a join over part of the data gives wrong numbers. A key whose
// type differs between inputs, and a join that yields more rows than its
// largest input (duplicate keys), are warned about (node.warning). The
// result is a new snapshot, numbered in the ledger, whose Tool is "merge"
// and whose Source lists the input snapshots (Q1,Q2), so it traces back to
// both sides.
func execMerge(ctx context.Context, t *task) (any, effects, error) {
	n := t.node
	var inputs []string
	for _, x := range n.List("inputs") {
		if s, ok := x.(string); ok {
			inputs = append(inputs, s)
		}
	}
	if len(inputs) == 0 {
		return nil, effects{}, fmt.Errorf("node %q: inputs: lists no nodes", t.id)
	}
	key, query := n.Str("key"), n.Str("sql")
	if key == "" && query == "" {
		return nil, effects{}, fmt.Errorf("node %q: give key: (a column every input has) or sql:", t.id)
	}
	snaps := make([]*evidence.Snapshot, len(inputs))
	var ids []string
	for i, in := range inputs {
		out, ok := t.sc.node(in)
		m, _ := out.(map[string]any)
		id, _ := m["snapshot"].(string)
		if !ok || id == "" {
			return nil, effects{}, fmt.Errorf("node %q: input %q has no snapshot; merge inputs must be tool or merge nodes", t.id, in)
		}
		s, ok := t.r.snapshot(id)
		if !ok {
			return nil, effects{}, fmt.Errorf("node %q: snapshot %s of input %q cannot be read", t.id, id, in)
		}
		if s.Truncated {
			return nil, effects{}, fmt.Errorf("node %q: input %q (%s) was truncated at %d rows; a merge over part of the data would be wrong, so narrow or aggregate that query", t.id, in, id, s.RowCap)
		}
		snaps[i] = s
		ids = append(ids, id)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for i, s := range snaps {
		if err := loadTable(ctx, db, inputs[i], s); err != nil {
			return nil, effects{}, fmt.Errorf("node %q: loading %q: %v", t.id, inputs[i], err)
		}
	}
	if query == "" {
		var types []string
		for i, s := range snaps {
			j := colIndex(s, key)
			if j < 0 {
				return nil, effects{}, fmt.Errorf("node %q: input %q has no column %q (its columns: %s)", t.id, inputs[i], key, strings.Join(s.Columns, ", "))
			}
			types = append(types, inputs[i]+":"+s.Types[j])
		}
		if mixed(snaps, key) {
			if err := t.warn("W-MERGE-KEY-TYPE", "key %q has different types in the inputs (%s); values of different types never match in a join", key, strings.Join(types, ", ")); err != nil {
				return nil, effects{}, err
			}
		}
		query = joinSQL(inputs, snaps, key)
	} else if v, _ := sqlguard.Inspect(query); !v.OK {
		return nil, effects{}, fmt.Errorf("node %q: sql: %s: %s (fix: %s)", t.id, v.Code, v.Reason, v.Fix)
	}
	rowCap := t.r.cfg.Plan.Settings.RowCap
	if rowCap <= 0 {
		rowCap = 1000
	}
	res, err := runMerge(ctx, db, query, rowCap)
	if err != nil {
		return nil, effects{}, fmt.Errorf("node %q: %v", t.id, err)
	}
	largest := 0
	masked := map[string]bool{}
	for _, s := range snaps {
		largest = max(largest, len(s.Rows))
		for _, c := range s.Masked {
			masked[c] = true
		}
	}
	if len(res.Rows) > largest {
		if err := t.warn("W-MERGE-BLOWUP", "the merge gave %d rows, more than its largest input (%d): a key repeats on both sides; check key %q or aggregate first", len(res.Rows), largest, key); err != nil {
			return nil, effects{}, err
		}
	}
	for _, c := range res.Columns {
		if masked[c] {
			res.Masked = append(res.Masked, c)
		}
	}
	res.Node, res.Tool, res.Source = t.id, "merge", strings.Join(ids, ",")
	id, art, err := t.recordSnapshot(ctx, res)
	if err != nil {
		return nil, effects{}, err
	}
	return res.Object(), effects{record: map[string]any{"snapshot": id, "snapshot_artifact": art, "inputs": ids}}, nil
}

func loadTable(ctx context.Context, db *sql.DB, name string, s *evidence.Snapshot) error {
	cols := make([]string, len(s.Columns))
	marks := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		typ := s.Types[i]
		if typ == evidence.TypeNull {
			typ = ""
		}
		cols[i] = strings.TrimSpace(sqlguard.QuoteIdent(c) + " " + typ)
		marks[i] = "?"
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+sqlguard.QuoteIdent(name)+" ("+strings.Join(cols, ", ")+")"); err != nil {
		return err
	}
	ins := "INSERT INTO " + sqlguard.QuoteIdent(name) + " VALUES (" + strings.Join(marks, ", ") + ")"
	for _, r := range s.Rows {
		if _, err := db.ExecContext(ctx, ins, r...); err != nil {
			return err
		}
	}
	return nil
}

func mixed(snaps []*evidence.Snapshot, key string) bool {
	t := ""
	for _, s := range snaps {
		x := s.Types[colIndex(s, key)]
		if x == evidence.TypeNull {
			continue
		}
		if x == evidence.TypeReal {
			x = evidence.TypeInteger // numbers compare as numbers
		}
		if t != "" && x != t {
			return true
		}
		t = x
	}
	return false
}

// joinSQL writes the key join of the inputs.
func joinSQL(inputs []string, snaps []*evidence.Snapshot, key string) string {
	seen := map[string]bool{key: true}
	sel := []string{sqlguard.QuoteIdent(inputs[0]) + "." + sqlguard.QuoteIdent(key) + " AS " + sqlguard.QuoteIdent(key)}
	for i, s := range snaps {
		for _, c := range s.Columns {
			if c == key {
				continue
			}
			name := c
			if seen[c] {
				name = inputs[i] + "_" + c
			}
			seen[name] = true
			sel = append(sel, sqlguard.QuoteIdent(inputs[i])+"."+sqlguard.QuoteIdent(c)+" AS "+sqlguard.QuoteIdent(name))
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + sqlguard.QuoteIdent(inputs[0])
	for _, in := range inputs[1:] {
		q += " JOIN " + sqlguard.QuoteIdent(in) + " ON " + sqlguard.QuoteIdent(inputs[0]) + "." + sqlguard.QuoteIdent(key) + " = " + sqlguard.QuoteIdent(in) + "." + sqlguard.QuoteIdent(key)
	}
	return q + " ORDER BY 1"
}

func runMerge(ctx context.Context, db *sql.DB, query string, rowCap int) (*evidence.Snapshot, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c] {
			return nil, fmt.Errorf("the result has two columns named %q; give them distinct names with AS", c)
		}
		seen[c] = true
	}
	s := &evidence.Snapshot{SQL: query, Columns: cols, Rows: [][]any{}, RowCap: rowCap}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if len(s.Rows) == rowCap {
			s.Truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := make([]any, len(cols))
		for i, v := range vals {
			x, ok := evidence.Cell(v)
			if !ok {
				return nil, fmt.Errorf("column %q holds a number that is not finite", cols[i])
			}
			r[i] = x
		}
		s.Rows = append(s.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.Types = evidence.ColumnTypes(s.Rows, len(cols))
	return s, nil
}

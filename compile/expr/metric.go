package expr

import (
	"github.com/expr-lang/expr/ast"
)

// snapshot is a tool or merge node's output as the run engine hands it
// over: {"node", "snapshot", "columns", "rows", "truncated"}.
type snapshot struct {
	node      string
	columns   []string // nil when the snapshot does not list them
	rows      []any    // each a map column → value, or a list in column order
	truncated bool
}

// readSnapshot interprets v, the value of nodes.<id>, as a snapshot.
func (e *evaluator) readSnapshot(name string, v any, at ast.Node) (*snapshot, error) {
	if !isMap(v) {
		return nil, e.fail(at, "%s needs a snapshot (the output of a tool or merge node), but %s is %s",
			name, at.String(), typeName(v))
	}
	s := &snapshot{}
	if n, _, _ := mapGet(v, "node"); n != nil {
		s.node, _ = n.(string)
	}
	if s.node == "" {
		s.node, _ = snapshotNode(at)
	}
	if t, _, _ := mapGet(v, "truncated"); t == true {
		s.truncated = true
	}
	if cols, found, _ := mapGet(v, "columns"); found && cols != nil {
		list, ok := asList(cols)
		if !ok {
			return nil, e.fail(at, "%s: the columns of %s are %s, not a list", name, at.String(), typeName(cols))
		}
		for _, c := range list {
			cs, ok := c.(string)
			if !ok {
				return nil, e.fail(at, "%s: a column name of %s is %s, not text", name, at.String(), typeName(c))
			}
			s.columns = append(s.columns, cs)
		}
	}
	rows, found, _ := mapGet(v, "rows")
	if !found {
		return nil, e.fail(at, "%s: %s has no rows; only tool and merge nodes produce snapshots", name, at.String())
	}
	if rows != nil {
		list, ok := asList(rows)
		if !ok {
			return nil, e.fail(at, "%s: the rows of %s are %s, not a list", name, at.String(), typeName(rows))
		}
		s.rows = list
	}
	return s, nil
}

// value reads column col of row i.
func (e *evaluator) value(s *snapshot, i int, col string, at ast.Node) (any, error) {
	row := s.rows[i]
	if isMap(row) {
		v, _, _ := mapGet(row, col)
		return v, nil
	}
	if list, ok := asList(row); ok {
		for j, c := range s.columns {
			if c == col && j < len(list) {
				return list[j], nil
			}
		}
		return nil, nil
	}
	return nil, e.fail(at, "row %d of %s is %s, not a row", i, at.String(), typeName(row))
}

// checkColumn rejects a column the snapshot does not have.
func (e *evaluator) checkColumn(name string, s *snapshot, col string, at ast.Node) error {
	if s.columns == nil {
		if len(s.rows) > 0 && !isMap(s.rows[0]) {
			return e.fail(at, "%s: the snapshot of node %s lists no columns", name, quote(s.node))
		}
		return nil
	}
	for _, c := range s.columns {
		if c == col {
			return nil
		}
	}
	msg := "columns: " + listOf(s.columns)
	if d := didYouMean(col, s.columns); d != "" {
		msg = d
	}
	return e.fail(at, "%s: the snapshot of node %s has no column %s (%s)", name, quote(s.node), quote(col), msg)
}

// traced reports one cell to the trace callback, if any.
func (e *evaluator) traced(c Cell) {
	if e.trace != nil {
		e.trace(c)
	}
}

// snapshotFunc implements col, cell and rows. Every cell read is traced,
// so that a metric value records exactly which inputs it came from. A
// truncated snapshot holds only part of the data: aggregating over it
// (col, rows) would silently give a wrong number, so it is an error.
func (e *evaluator) snapshotFunc(name string, args []any, nodes []ast.Node) (any, error) {
	s, err := e.readSnapshot(name, args[0], nodes[0])
	if err != nil {
		return nil, err
	}
	if s.truncated && name != "cell" {
		return nil, e.fail(nodes[0], "%s: the snapshot of node %s was truncated at the row cap, so %s would cover only part of the data; narrow the query or raise the cap",
			name, quote(s.node), name)
	}
	switch name {
	case "rows":
		e.traced(Cell{Node: s.node, Row: -1, Value: len(s.rows)})
		return len(s.rows), nil
	case "col":
		col, ok := args[1].(string)
		if !ok {
			return nil, e.fail(nodes[1], "col: the column must be text, not %s", typeName(args[1]))
		}
		if err := e.checkColumn(name, s, col, nodes[1]); err != nil {
			return nil, err
		}
		out := make([]any, len(s.rows))
		for i := range s.rows {
			v, err := e.value(s, i, col, nodes[0])
			if err != nil {
				return nil, err
			}
			e.traced(Cell{Node: s.node, Row: i, Column: col, Value: v})
			out[i] = v
		}
		return out, nil
	}
	// cell
	rn, ok := asNumber(args[1])
	if !ok {
		return nil, e.fail(nodes[1], "cell: the row must be a number, not %s", typeName(args[1]))
	}
	row, err := e.toIndex(nodes[1], rn)
	if err != nil {
		return nil, err
	}
	if row < 0 || row >= len(s.rows) {
		return nil, e.fail(nodes[1], "cell: row %d is out of range (the snapshot of node %s has %d rows)", row, quote(s.node), len(s.rows))
	}
	col, ok := args[2].(string)
	if !ok {
		return nil, e.fail(nodes[2], "cell: the column must be text, not %s", typeName(args[2]))
	}
	if err := e.checkColumn(name, s, col, nodes[2]); err != nil {
		return nil, err
	}
	v, err := e.value(s, row, col, nodes[0])
	if err != nil {
		return nil, err
	}
	e.traced(Cell{Node: s.node, Row: row, Column: col, Value: v})
	return v, nil
}

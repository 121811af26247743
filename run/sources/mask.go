package sources

import (
	"strings"

	"github.com/agentlab/agentlab/run/sqlguard"
	sqlite "modernc.org/sqlite"
)

// maskPlan decides which result columns are masked. A masked column's
// values may be used to filter, join, group and order, but must never come
// back. The decision errs on the side of masking:
//
//  1. If the statement reads no masked column (SQLite's authorizer reports
//     every column read, whatever alias, view or * is used), nothing is masked.
//  2. If it has UNION, INTERSECT or EXCEPT, every column is masked: a
//     column's origin is only reported for one arm of a compound.
//  3. A result column that is a plain reference to a column of one of the
//     source's tables (SQLite resolves this through subqueries and CTEs) is
//     masked when that column is.
//  4. Any other result column (an expression) is masked unless the query is
//     a single flat SELECT (no table-valued function such as json_each in
//     FROM, whose rows may be made of masked values) and the expression mentions no masked column
//     name and no alias of a masked result column. So in
//     SELECT region, SUM(amount) FROM t WHERE customer = 'x' GROUP BY region
//     both columns come back, but COUNT(DISTINCT customer) is masked, and
//     every expression column of a query with a subquery or CTE that reads a
//     masked column is masked.
func maskPlan(s *source, shape sqlguard.Shape, info []sqlite.ColumnInfo, reads []read) []bool {
	out := make([]bool, len(info))
	touched := false
	for _, r := range reads {
		if s.isMasked(r.table, r.column) {
			touched = true
			break
		}
	}
	if !touched {
		return out
	}
	if shape.Compound {
		for i := range out {
			out[i] = true
		}
		return out
	}
	items := itemForColumn(shape, len(info))
	tainted := taintedItems(s, shape.Items)
	for i, ci := range info {
		switch {
		case ci.OriginName != "" && s.hasTable(ci.TableName):
			out[i] = s.isMasked(ci.TableName, ci.OriginName)
		case !shape.Flat || items[i] < 0:
			out[i] = true
		default:
			out[i] = tainted[items[i]]
		}
	}
	return out
}

// itemForColumn maps each result column of a flat SELECT to the index of
// the result-list item that produced it, or -1 when that cannot be told
// (more than one * item, or counts that do not add up).
func itemForColumn(shape sqlguard.Shape, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	if !shape.Flat {
		return out
	}
	star := -1
	for k, it := range shape.Items {
		if it.Star {
			if star >= 0 {
				return out
			}
			star = k
		}
	}
	if star < 0 {
		if len(shape.Items) != n {
			return out
		}
		for i := range out {
			out[i] = i
		}
		return out
	}
	after := len(shape.Items) - star - 1
	if star+after > n {
		return out
	}
	for i := 0; i < star; i++ {
		out[i] = i
	}
	for k := 0; k < after; k++ {
		out[n-after+k] = star + 1 + k
	}
	return out
}

// taintedItems marks the items that mention a masked column name or the
// alias of another tainted item, repeated until nothing changes.
func taintedItems(s *source, items []sqlguard.Item) []bool {
	names := map[string]bool{}
	for n := range s.names {
		names[n] = true
	}
	out := make([]bool, len(items))
	for changed := true; changed; {
		changed = false
		for k, it := range items {
			if out[k] {
				continue
			}
			for _, n := range it.Names {
				if names[n] {
					out[k] = true
					changed = true
					if it.Alias != "" {
						names[it.Alias] = true
					}
					break
				}
			}
		}
	}
	return out
}

// hasTable reports whether name is one of the tables the source exposes.
func (s *source) hasTable(name string) bool {
	for _, t := range s.tables {
		if strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

package sources

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/sqlguard"
	sqlite "modernc.org/sqlite"
)

// Query runs one guarded, read-only statement on a source and returns its
// snapshot (without ID and Node, which the caller's ledger and node fill in).
//
// Parameters are bound by name (:week ↔ params["week"]), never pasted into
// the text, so a value is always data. Every :name in the SQL needs a value
// and every value must be used. Values may be strings, numbers, booleans
// (bound as 1/0) or null; a whole number is bound as an integer.
//
// rowCap bounds the rows kept (≤ 0 means plan.DefaultSettings.RowCap; the
// source's own row_cap applies when it is smaller); when more rows exist
// the snapshot is marked Truncated. Masked columns come back with every
// value, NULL included, replaced by "***" and type TEXT, and are listed in
// Masked (see maskPlan for which columns count as masked).
func (db *DB) Query(ctx context.Context, source, sqlText string, params map[string]any, rowCap int) (*evidence.Snapshot, error) {
	s, ok := db.sources[source]
	if !ok {
		return nil, &QueryError{Source: source, Code: CodeSource, Reason: fmt.Sprintf("there is no source %q", source),
			Fix: "declare it under sources:, or use one of: " + strings.Join(db.keys, ", ")}
	}
	qerr := func(code, fix, format string, args ...any) error {
		return &QueryError{Source: source, Code: code, Reason: fmt.Sprintf(format, args...), Fix: fix}
	}
	v, shape := sqlguard.Inspect(sqlText)
	if !v.OK {
		return nil, &QueryError{Source: source, Code: v.Code, Reason: v.Reason, Fix: v.Fix, Line: v.Line, Col: v.Col}
	}
	bound, args, err := bindParams(source, shape, params)
	if err != nil {
		return nil, err
	}
	if rowCap <= 0 {
		rowCap = plan.DefaultSettings.RowCap
	}
	if s.spec.RowCap > 0 && s.spec.RowCap < rowCap {
		rowCap = s.spec.RowCap
	}
	// One query at a time per source; a query's own timeout starts once it
	// has the connection, so that waiting behind a slow query never counts
	// against it (it would fail as a timeout it never had).
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, QueryTimeout)
	defer cancel()
	// Masking needs the columns the statement reads and where each result
	// column comes from, which a separate prepare tells; a source without
	// masked columns has nothing to learn from it (the authorizer still
	// guards the prepare of the statement itself).
	var info []sqlite.ColumnInfo
	var reads []read
	if len(s.masked) > 0 {
		s.reads, s.recording = nil, true
		err = s.conn.Raw(func(dc any) error {
			ci, ok := dc.(interface {
				ColumnInfo(string) ([]sqlite.ColumnInfo, error)
			})
			if !ok {
				return errors.New("the SQLite driver cannot describe result columns")
			}
			var e error
			info, e = ci.ColumnInfo(sqlText)
			return e
		})
		s.recording = false
		if err != nil {
			return nil, execErr(ctx, source, err)
		}
		reads = s.reads
	}
	rows, err := s.conn.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, execErr(ctx, source, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, execErr(ctx, source, err)
	}
	if info != nil && len(cols) != len(info) {
		return nil, qerr(CodeExec, "send the statement again", "the statement changed shape between preparing and running")
	}
	seen := map[string]int{}
	for i, c := range cols {
		if j, dup := seen[c]; dup {
			return nil, qerr(CodeResult, "give the columns distinct names with AS",
				"result columns %d and %d are both named %q; rows are addressed by column name", j+1, i+1, c)
		}
		seen[c] = i
	}
	snap := &evidence.Snapshot{
		Tool: "db_query__" + source, Source: source, SQL: sqlText, Params: bound,
		Columns: cols, Rows: [][]any{}, RowCap: rowCap,
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var size int64
	for rows.Next() {
		if len(snap.Rows) == rowCap {
			snap.Truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, execErr(ctx, source, err)
		}
		row := make([]any, len(cols))
		for i, v := range vals {
			size += cellBytes(v)
			if size > MaxResultBytes {
				return nil, tooLarge(source, fmt.Sprintf("the rows read so far are over %d bytes", MaxResultBytes))
			}
			x, ok := evidence.Cell(v)
			if !ok {
				return nil, qerr(CodeResult, "cap the value in SQL, for example with min(x, 1e308)",
					"column %q of row %d is an infinite number, which a snapshot cannot hold", cols[i], len(snap.Rows))
			}
			row[i] = x
		}
		snap.Rows = append(snap.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, execErr(ctx, source, err)
	}
	snap.Types = evidence.ColumnTypes(snap.Rows, len(cols))
	if info == nil {
		return snap, nil
	}
	for i, m := range maskPlan(s, shape, info, reads) {
		if !m {
			continue
		}
		snap.Masked = append(snap.Masked, cols[i])
		snap.Types[i] = evidence.TypeText
		for _, r := range snap.Rows {
			r[i] = evidence.MaskedValue
		}
	}
	return snap, nil
}

// bindParams checks params against the SQL's :names and converts them to
// bound values; the returned map is what the snapshot records.
func bindParams(source string, shape sqlguard.Shape, params map[string]any) (map[string]any, []any, error) {
	names := shape.Params
	perr := func(code, fix, format string, args ...any) error {
		return &QueryError{Source: source, Code: code, Reason: fmt.Sprintf(format, args...), Fix: fix}
	}
	used := map[string]bool{}
	for _, n := range names {
		used[n] = true
	}
	var extra []string
	for k := range params {
		if !used[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		return nil, nil, perr(CodeParamUnused, "use :"+extra[0]+" in the SQL, or remove it from params",
			"params has %s, which the SQL never uses", quoteList(extra))
	}
	if len(names) == 0 {
		return nil, nil, nil
	}
	bound := make(map[string]any, len(names))
	args := make([]any, 0, len(names))
	for _, n := range names {
		v, ok := params[n]
		if !ok {
			return nil, nil, perr(CodeParamMissing, fmt.Sprintf("add %q to params", n), "the SQL uses :%s but params has no value for it", n)
		}
		b, ok := bindValue(v)
		if !ok {
			return nil, nil, perr(CodeParamType, "pass a string, number, boolean or null; for a list use several parameters or json_each(:"+n+")",
				"parameter %q is a %T; only single values can be bound", n, v)
		}
		if str, ok := b.(string); ok && shape.Clock && sqlguard.ClockWord(str) {
			return nil, nil, perr(sqlguard.CodeNondet, "pass the date itself (for example as a flow input), in UTC",
				"parameter %q is %q, which makes a date function depend on the clock or the machine's time zone", n, str)
		}
		bound[n] = b
		args = append(args, sql.Named(n, b))
	}
	return bound, args, nil
}

func bindValue(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case bool:
		if x {
			return int64(1), true
		}
		return int64(0), true
	case float32:
		return bindValue(float64(x))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x), true
		}
		return x, true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, true
		}
		f, err := x.Float64()
		if err != nil {
			return nil, false
		}
		return bindValue(f)
	}
	return nil, false
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// cellBytes is what a scanned value weighs in a snapshot.
func cellBytes(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	}
	return 8
}

func tooLarge(source, why string) error {
	return &QueryError{Source: source, Code: CodeTooLarge,
		Reason: fmt.Sprintf("the result is too large: %s (the cap is %d bytes)", why, MaxResultBytes),
		Fix:    "select fewer or narrower columns, aggregate in SQL, or lower the row cap"}
}

// execErr classifies an error from SQLite.
func execErr(ctx context.Context, source string, err error) error {
	if ctx.Err() != nil {
		return &QueryError{Source: source, Code: CodeTimeout,
			Reason: fmt.Sprintf("the query did not finish before its deadline (%v per query, or the node's timeout if sooner)", QueryTimeout),
			Fix:    "filter or aggregate more in SQL, or raise the node's timeout_s"}
	}
	msg := err.Error()
	if strings.Contains(msg, "too big") { // SQLITE_TOOBIG: a value over the length limit
		return tooLarge(source, fmt.Sprintf("SQLite refused to build a value longer than %d bytes", MaxResultBytes))
	}
	fix := "check the table and column names against the tool description"
	if strings.Contains(msg, "not authorized") || strings.Contains(msg, "readonly") || strings.Contains(msg, "read-only") {
		fix = "sources are read-only; write a single SELECT"
	}
	return &QueryError{Source: source, Code: CodeExec, Reason: msg, Fix: fix}
}

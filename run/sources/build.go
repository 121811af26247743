package sources

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/run/sqlguard"
)

// buildCSV parses a CSV file and writes it as the STRICT table named after
// the source key into a private database.
func buildCSV(ctx context.Context, private, key, file string, data []byte, s *source) *diag.Diagnostic {
	t, d := parseCSV(file, data)
	if d != nil {
		return d
	}
	tb := table{Name: key}
	for j, c := range t.Columns {
		tb.Columns = append(tb.Columns, column{Name: c, Type: t.Types[j]})
	}
	s.tables = []table{tb}
	if err := writeTable(ctx, private, tb, t.Rows); err != nil {
		return &diag.Diagnostic{File: file, Severity: diag.Error, Code: CodeOpen,
			Message: fmt.Sprintf("source %q: cannot build its table: %v", key, err), Fix: "check the temporary directory is writable and has space"}
	}
	return nil
}

func writeTable(ctx context.Context, private string, tb table, rows [][]any) error {
	w, err := writable(private)
	if err != nil {
		return err
	}
	defer w.Close()
	cols := make([]string, len(tb.Columns))
	marks := make([]string, len(tb.Columns))
	for j, c := range tb.Columns {
		cols[j] = sqlguard.QuoteIdent(c.Name) + " " + c.Type
		marks[j] = "?"
	}
	if _, err := w.ExecContext(ctx, "CREATE TABLE "+sqlguard.QuoteIdent(tb.Name)+" ("+strings.Join(cols, ", ")+") STRICT"); err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, "INSERT INTO "+sqlguard.QuoteIdent(tb.Name)+" VALUES ("+strings.Join(marks, ",")+")")
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, r := range rows {
		if _, err := ins.ExecContext(ctx, r...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// buildSQLite copies the exposed tables of a SQLite database into a
// private database. The bytes already read (and hashed) are written to a
// private file first, so what is queried is exactly what was hashed, even
// if the original changes during the run. With table: set, that one table
// is exposed under the source key; otherwise every table keeps its own
// name. Views, triggers and indexes are not copied.
func buildSQLite(ctx context.Context, dir, private string, i int, key, file string, data []byte, s *source,
	fail func(code, fix, format string, args ...any) *diag.Diagnostic) *diag.Diagnostic {
	if !bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
		return fail(CodeSQLite, "point path at a SQLite database file, or use kind: csv for a CSV file", "the file is not a SQLite database")
	}
	if st, err := os.Stat(file + "-wal"); err == nil && st.Size() > 0 {
		return fail(CodeWAL, "checkpoint the database first: sqlite3 FILE 'PRAGMA wal_checkpoint(TRUNCATE)'",
			"the database has uncommitted changes in %s, which would not be part of the recorded source hash", filepath.Base(file)+"-wal")
	}
	orig := filepath.Join(dir, fmt.Sprintf("s%d.orig.db", i))
	if err := os.WriteFile(orig, data, 0o600); err != nil {
		return fail(CodeOpen, "check the temporary directory is writable and has space", "cannot copy the database: %v", err)
	}
	defer os.Remove(orig)
	w, err := writable(private)
	if err != nil {
		return fail(CodeSQLite, "check the temporary directory is writable", "%v", err)
	}
	defer w.Close()
	conn, err := w.Conn(ctx)
	if err != nil {
		return fail(CodeSQLite, "check the temporary directory is writable", "%v", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS src", "file:"+uriPath(orig)+"?mode=ro&immutable=1"); err != nil {
		return fail(CodeSQLite, "check the file is an intact, unencrypted SQLite database", "cannot open the database: %v", err)
	}
	names, err := queryStrings(ctx, conn, "SELECT name FROM src.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
	if err != nil {
		return fail(CodeSQLite, "check the file is an intact, unencrypted SQLite database", "cannot read its schema: %v", err)
	}
	if len(names) == 0 {
		return fail(CodeTable, "add a table to the database, or point path at another file", "the database has no tables")
	}
	type pick struct{ from, as string }
	var picks []pick
	if s.spec.Table != "" {
		found := ""
		for _, n := range names {
			if strings.EqualFold(n, s.spec.Table) {
				found = n
			}
		}
		if found == "" {
			return fail(CodeTable, "set table: to one of: "+strings.Join(names, ", ")+didYouMean(s.spec.Table, names),
				"the database has no table %q", s.spec.Table)
		}
		picks = []pick{{found, key}}
	} else {
		for _, n := range names {
			picks = append(picks, pick{n, n})
		}
	}
	for _, p := range picks {
		tb := table{Name: p.as}
		rows, err := conn.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?, 'src') ORDER BY cid", p.from)
		if err != nil {
			return fail(CodeSQLite, "check the file is an intact SQLite database", "cannot read table %q: %v", p.from, err)
		}
		for rows.Next() {
			var n, decl string
			if err := rows.Scan(&n, &decl); err != nil {
				rows.Close()
				return fail(CodeSQLite, "check the file is an intact SQLite database", "cannot read table %q: %v", p.from, err)
			}
			tb.Columns = append(tb.Columns, column{Name: n, Type: affinity(decl)})
		}
		rows.Close()
		cols := make([]string, len(tb.Columns))
		defs := make([]string, len(tb.Columns))
		for j, c := range tb.Columns {
			cols[j] = sqlguard.QuoteIdent(c.Name)
			defs[j] = sqlguard.QuoteIdent(c.Name) + " " + c.Type
		}
		// Declared types are reduced to their affinity so that the driver
		// never turns DATE or TIMESTAMP text into time values.
		if _, err := conn.ExecContext(ctx, "CREATE TABLE main."+sqlguard.QuoteIdent(p.as)+" ("+strings.Join(defs, ", ")+")"); err != nil {
			return fail(CodeSQLite, "rename the table", "cannot copy table %q: %v", p.from, err)
		}
		if _, err := conn.ExecContext(ctx, "INSERT INTO main."+sqlguard.QuoteIdent(p.as)+" SELECT "+strings.Join(cols, ", ")+" FROM src."+sqlguard.QuoteIdent(p.from)); err != nil {
			return fail(CodeSQLite, "check the file is an intact SQLite database", "cannot copy table %q: %v", p.from, err)
		}
		s.tables = append(s.tables, tb)
	}
	if _, err := conn.ExecContext(ctx, "DETACH DATABASE src"); err != nil {
		return fail(CodeSQLite, "check the file is an intact SQLite database", "%v", err)
	}
	return nil
}

func queryStrings(ctx context.Context, conn *sql.Conn, q string, args ...any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// affinity applies SQLite's column affinity rules to a declared type.
func affinity(decl string) string {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return "INTEGER"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "TEXT"
	case d == "" || strings.Contains(d, "BLOB"):
		return "BLOB"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// applyMask resolves mask_columns: "column" masks that column in every
// exposed table that has it, "table.column" in that table only. A name that
// matches nothing is an error.
func (s *source) applyMask(file string) *diag.Diagnostic {
	s.masked = map[string]map[string]bool{}
	s.names = map[string]bool{}
	var all []string
	for _, t := range s.tables {
		for _, c := range t.Columns {
			all = append(all, c.Name)
		}
	}
	for _, m := range s.spec.MaskColumns {
		tname, cname, qualified := strings.Cut(m, ".")
		if !qualified {
			cname, tname = m, ""
		}
		hit := false
		for ti := range s.tables {
			t := &s.tables[ti]
			if qualified && !strings.EqualFold(t.Name, tname) {
				continue
			}
			for ci := range t.Columns {
				if strings.EqualFold(t.Columns[ci].Name, cname) {
					t.Columns[ci].Masked = true
					lt := strings.ToLower(t.Name)
					if s.masked[lt] == nil {
						s.masked[lt] = map[string]bool{}
					}
					s.masked[lt][strings.ToLower(cname)] = true
					s.names[strings.ToLower(cname)] = true
					hit = true
				}
			}
		}
		if !hit {
			sort.Strings(all)
			return &diag.Diagnostic{File: file, Line: 1, Col: 1, Severity: diag.Error, Code: CodeMask,
				Message: fmt.Sprintf("source %q: mask_columns names %q, which is not a column of the source", s.key, m),
				Fix:     "use one of: " + strings.Join(all, ", ") + didYouMean(cname, all)}
		}
	}
	return nil
}

// isMasked reports whether table.column is masked.
func (s *source) isMasked(tableName, col string) bool {
	return s.masked[strings.ToLower(tableName)][strings.ToLower(col)]
}

// didYouMean suggests the candidate within half the name's length plus one
// edit, as " (did you mean "x"?)", or "".
func didYouMean(name string, cands []string) string {
	if best, ok := diag.ClosestWithin(name, cands, len(name)/2+1); ok {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

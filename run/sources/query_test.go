package sources

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentlab/agentlab/evidence"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/sqlguard"
)

func loadSales(t *testing.T, extra map[string]plan.Source) *DB {
	t.Helper()
	srcs := map[string]plan.Source{"sales": {Kind: "csv", Path: "sales.csv", MaskColumns: []string{"customer"}}}
	for k, v := range extra {
		srcs[k] = v
	}
	db, err := Load(context.Background(), "testdata", srcs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func query(t *testing.T, db *DB, sqlText string, params map[string]any, rowCap int) *evidence.Snapshot {
	t.Helper()
	s, err := db.Query(context.Background(), "sales", sqlText, params, rowCap)
	if err != nil {
		t.Fatalf("%s: %v", sqlText, err)
	}
	if _, err := s.Canonical(); err != nil {
		t.Fatalf("%s: snapshot does not validate: %v", sqlText, err)
	}
	return s
}

func codeOf(err error) string {
	var qe *QueryError
	if errors.As(err, &qe) {
		return qe.Code
	}
	return ""
}

func TestQueryBasics(t *testing.T) {
	db := loadSales(t, nil)
	s := query(t, db, "SELECT region, SUM(amount) AS gmv, SUM(units) AS n, MIN(zip) AS zip, MAX(note) AS note FROM sales WHERE week = :week GROUP BY region ORDER BY region",
		map[string]any{"week": "2026-W47"}, 0)
	want := &evidence.Snapshot{
		Tool: "db_query__sales", Source: "sales",
		SQL:     s.SQL,
		Params:  map[string]any{"week": "2026-W47"},
		Columns: []string{"region", "gmv", "n", "zip", "note"},
		Types:   []string{"TEXT", "REAL", "INTEGER", "TEXT", "TEXT"},
		Rows: [][]any{
			{"east", nil, int64(0), nil, nil},
			{"north", 800.0, int64(2), "02345", nil},
			{"south", 950.0, int64(4), "10002", `say "hi"`},
		},
		RowCap: plan.DefaultSettings.RowCap,
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("snapshot\n got %#v\nwant %#v", s, want)
	}
	s = query(t, db, "SELECT name, type FROM pragma_table_info('sales') ORDER BY cid", nil, 0)
	if len(s.Rows) != 7 || s.Rows[2][0] != "amount" || s.Rows[2][1] != "REAL" {
		t.Fatalf("pragma_table_info: %v", s.Rows)
	}
	s = query(t, db, "VALUES (1, 'a'), (2.5, NULL)", nil, 0)
	if !reflect.DeepEqual(s.Columns, []string{"column1", "column2"}) || !reflect.DeepEqual(s.Rows, [][]any{{1.0, "a"}, {2.5, nil}}) || s.Types[0] != "REAL" {
		t.Fatalf("VALUES: %+v", s)
	}
	s = query(t, db, "SELECT 1 AS one; -- done\n;", nil, 0)
	if !reflect.DeepEqual(s.Rows, [][]any{{int64(1)}}) {
		t.Fatalf("trailing semicolon: %v", s.Rows)
	}
	hashes := db.SourceHashes()
	b, _ := os.ReadFile("testdata/sales.csv")
	if hashes["sales"] != hashid.Sum(b).String() {
		t.Fatalf("source hash %s", hashes["sales"])
	}
}

func TestQueryParams(t *testing.T) {
	db := loadSales(t, nil)
	// An injection attempt through a value stays a value: no row matches it
	// and the table is untouched.
	evil := "2026-W47' OR '1'='1"
	s := query(t, db, "SELECT COUNT(*) AS n FROM sales WHERE week = :week", map[string]any{"week": evil}, 0)
	if s.Rows[0][0] != int64(0) {
		t.Fatalf("injection matched rows: %v", s.Rows)
	}
	s = query(t, db, "SELECT COUNT(*) AS n FROM sales WHERE week = :w", map[string]any{"w": "x'; DROP TABLE sales; --"}, 0)
	if s.Rows[0][0] != int64(0) {
		t.Fatal("drop attempt matched")
	}
	s = query(t, db, "SELECT COUNT(*) AS n FROM sales", nil, 0)
	if s.Rows[0][0] != int64(5) {
		t.Fatalf("table changed: %v", s.Rows)
	}
	// Numbers: a whole float binds as an integer, booleans as 1/0.
	s = query(t, db, "SELECT region FROM sales WHERE units = :u AND (:flag = 1) ORDER BY region", map[string]any{"u": 2.0, "flag": true}, 0)
	if len(s.Rows) != 1 || s.Rows[0][0] != "north" || s.Params["u"] != int64(2) || s.Params["flag"] != int64(1) {
		t.Fatalf("numeric params: %+v", s)
	}
	// 'now' is only a clock word for date functions.
	query(t, db, "SELECT :d AS d", map[string]any{"d": "now"}, 0)
	// The same :name used twice needs one value.
	query(t, db, "SELECT :a AS x, :a AS y", map[string]any{"a": "v"}, 0)

	errs := []struct {
		sql    string
		params map[string]any
		code   string
	}{
		{"SELECT * FROM sales WHERE week = :week", nil, CodeParamMissing},
		{"SELECT * FROM sales WHERE week = :week", map[string]any{"week": "x", "wek": "y"}, CodeParamUnused},
		{"SELECT * FROM sales", map[string]any{"week": "x"}, CodeParamUnused},
		{"SELECT * FROM sales WHERE week = :week", map[string]any{"week": []any{"a"}}, CodeParamType},
		{"SELECT * FROM sales WHERE week = :week", map[string]any{"week": map[string]any{}}, CodeParamType},
		{"SELECT * FROM sales WHERE week = ?", nil, sqlguard.CodeParam},
		{"SELECT date(:d) AS d", map[string]any{"d": "now"}, sqlguard.CodeNondet},
		{"SELECT datetime(:d, :m) AS d", map[string]any{"d": "2026-01-01", "m": " LocalTime"}, sqlguard.CodeNondet},
	}
	for _, e := range errs {
		_, err := db.Query(context.Background(), "sales", e.sql, e.params, 0)
		if codeOf(err) != e.code {
			t.Errorf("%s %v: got %v, want %s", e.sql, e.params, err, e.code)
		}
	}
}

func TestQueryRowCap(t *testing.T) {
	db := loadSales(t, map[string]plan.Source{"capped": {Kind: "csv", Path: "sales.csv", RowCap: 2}})
	s := query(t, db, "SELECT region FROM sales ORDER BY rowid", nil, 3)
	if len(s.Rows) != 3 || !s.Truncated || s.RowCap != 3 {
		t.Fatalf("cap 3 of 5: %d rows, truncated %v", len(s.Rows), s.Truncated)
	}
	s = query(t, db, "SELECT region FROM sales", nil, 5)
	if len(s.Rows) != 5 || s.Truncated {
		t.Fatalf("cap 5 of 5: %d rows, truncated %v", len(s.Rows), s.Truncated)
	}
	// The source's own row_cap wins when it is smaller.
	c, err := db.Query(context.Background(), "capped", "SELECT * FROM capped", nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 || !c.Truncated || c.RowCap != 2 {
		t.Fatalf("source row_cap: %d rows, cap %d", len(c.Rows), c.RowCap)
	}
	// An endless recursive CTE stops at the cap.
	s = query(t, db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", nil, 10)
	if len(s.Rows) != 10 || !s.Truncated {
		t.Fatalf("recursive: %d rows", len(s.Rows))
	}
}

func TestQueryTimeout(t *testing.T) {
	db := loadSales(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := db.Query(ctx, "sales", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c", nil, 0)
	if codeOf(err) != CodeTimeout {
		t.Fatalf("got %v, want %s", err, CodeTimeout)
	}
}

func TestQueryMasking(t *testing.T) {
	db := loadSales(t, nil)
	cases := []struct {
		sql    string
		masked []string
	}{
		{"SELECT region, amount FROM sales", nil},
		{"SELECT region, SUM(amount) AS gmv FROM sales WHERE customer = 'Acme Ltd' GROUP BY region", nil},
		{"SELECT customer, COUNT(*) AS n FROM sales GROUP BY customer", []string{"customer"}},
		{"SELECT * FROM sales", []string{"customer"}},
		{"SELECT s.* FROM sales s", []string{"customer"}},
		{"SELECT customer AS who, region FROM sales", []string{"who"}},
		{"SELECT upper(customer) AS u, region FROM sales", []string{"u"}},
		{"SELECT \"Customer\" || '' AS c FROM sales", []string{"c"}},
		{"SELECT substr(customer, 1, 3) AS c, length(region) AS l FROM sales", []string{"c"}},
		{"SELECT COUNT(DISTINCT customer) AS n FROM sales", []string{"n"}},
		{"SELECT amount * 2 AS dbl, *, length(region) AS l FROM sales", []string{"customer"}},
		{"SELECT upper(customer) AS u, *, length(region) AS l FROM sales", []string{"u", "customer"}},
		{"SELECT c FROM (SELECT customer AS c FROM sales)", []string{"c"}},
		{"WITH t AS (SELECT customer AS c, region FROM sales) SELECT c, region FROM t", []string{"c"}},
		{"WITH t AS (SELECT upper(customer) AS c, region FROM sales) SELECT c, region FROM t", []string{"c"}},
		{"WITH t AS (SELECT region, amount FROM sales WHERE customer IS NOT NULL) SELECT region, SUM(amount) AS s FROM t GROUP BY region", []string{"s"}},
		{"SELECT region FROM sales UNION ALL SELECT customer FROM sales", []string{"region"}},
		{"SELECT (SELECT customer FROM sales LIMIT 1) AS c", []string{"c"}},
		{"SELECT value FROM sales, json_each(json_quote(customer))", []string{"value"}},
		{"SELECT j.value AS v, region FROM sales JOIN json_each('[' || json_quote(customer) || ']') AS j", []string{"v"}},
		{"SELECT region FROM sales WHERE customer IN (SELECT customer FROM sales WHERE amount > 500)", nil},
	}
	for _, c := range cases {
		s := query(t, db, c.sql, nil, 0)
		if !reflect.DeepEqual(s.Masked, c.masked) {
			t.Errorf("%s: masked %v, want %v", c.sql, s.Masked, c.masked)
			continue
		}
		for _, m := range s.Masked {
			j := indexOf(s.Columns, m)
			if s.Types[j] != "TEXT" {
				t.Errorf("%s: masked column %s has type %s", c.sql, m, s.Types[j])
			}
			for _, r := range s.Rows {
				if r[j] != evidence.MaskedValue {
					t.Errorf("%s: masked column %s holds %v", c.sql, m, r[j])
				}
			}
		}
		for _, r := range s.Rows {
			for _, v := range r {
				if str, ok := v.(string); ok && (strings.Contains(str, "Acme") || strings.Contains(str, "ACME") || str == "Acm") {
					t.Errorf("%s: a masked value leaked: %v", c.sql, r)
				}
			}
		}
	}
	// Filtering on a masked column still works: it selects the right rows.
	s := query(t, db, "SELECT region FROM sales WHERE customer = :c ORDER BY region", map[string]any{"c": "Acme Ltd"}, 0)
	if !reflect.DeepEqual(s.Rows, [][]any{{"north"}, {"south"}}) {
		t.Fatalf("filter on masked column: %v", s.Rows)
	}
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

func TestQueryErrors(t *testing.T) {
	db := loadSales(t, nil)
	cases := []struct {
		source, sql string
		code        string
	}{
		{"nope", "SELECT 1", CodeSource},
		{"sales", "DELETE FROM sales", sqlguard.CodeStatement},
		{"sales", "SELECT 1; DROP TABLE sales", sqlguard.CodeMulti},
		{"sales", "SELECT nosuch FROM sales", CodeExec},
		{"sales", "SELECT region, region FROM sales", CodeResult},
		{"sales", "SELECT 1e308 * 10 AS big", CodeResult},
		{"sales", "SELECT load_extension('x')", sqlguard.CodeFunc},
	}
	for _, c := range cases {
		_, err := db.Query(context.Background(), c.source, c.sql, nil, 0)
		if codeOf(err) != c.code {
			t.Errorf("%s on %s: got %v, want %s", c.sql, c.source, err, c.code)
		}
	}
	var qe *QueryError
	_, err := db.Query(context.Background(), "sales", "SELECT 1;\n DROP TABLE sales", nil, 0)
	if !errors.As(err, &qe) || qe.Line != 2 || qe.Col != 2 || qe.Fix == "" {
		t.Fatalf("guard position not passed on: %#v", qe)
	}
}

// TestReadOnlyWithoutGuard sends writes straight to the source connection,
// as if the guard had let them through: the authorizer refuses them, and
// with the authorizer removed the read-only connection still does.
func TestReadOnlyWithoutGuard(t *testing.T) {
	db := loadSales(t, nil)
	s := db.sources["sales"]
	writes := []string{
		"DELETE FROM sales",
		"UPDATE sales SET amount = 0",
		"INSERT INTO sales (region) VALUES ('x')",
		"CREATE TABLE x (a)",
		"DROP TABLE sales",
		"PRAGMA query_only = 0",
		"ATTACH DATABASE ':memory:' AS m",
		"VACUUM INTO '" + filepath.Join(t.TempDir(), "copy.db") + "'",
	}
	ctx := context.Background()
	for _, w := range writes {
		if _, err := s.conn.ExecContext(ctx, w); err == nil {
			t.Errorf("authorizer let %q through", w)
		}
	}
	if _, err := s.conn.QueryContext(ctx, "SELECT load_extension('x')"); err == nil {
		t.Error("authorizer let load_extension through")
	}
	// A connection opened the same way but without the authorizer is
	// still read-only.
	path := filepath.Join(db.dir, "s0.db")
	raw, err := sql.Open("sqlite", "file:"+uriPath(path)+"?mode=ro&immutable=1&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, w := range writes[:5] {
		_, err := raw.ExecContext(ctx, w)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), "readonly") && !strings.Contains(err.Error(), "query_only") {
			t.Errorf("read-only connection accepted %q: %v", w, err)
		}
	}
	// Even after switching query_only off, mode=ro refuses writes.
	if _, err := raw.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, "DELETE FROM sales"); err == nil || !strings.Contains(strings.ToLower(err.Error()), "readonly") {
		t.Errorf("mode=ro connection accepted a delete: %v", err)
	}
	n := query(t, db, "SELECT COUNT(*) AS n FROM sales", nil, 0)
	if n.Rows[0][0] != int64(5) {
		t.Fatalf("rows after write attempts: %v", n.Rows)
	}
}

func TestQueryConcurrent(t *testing.T) {
	db := loadSales(t, nil)
	done := make(chan error, 20)
	for i := 0; i < 20; i++ {
		go func(i int) {
			sqlText := "SELECT region, SUM(amount) AS s FROM sales GROUP BY region"
			if i%2 == 0 {
				sqlText = "SELECT customer, region FROM sales"
			}
			s, err := db.Query(context.Background(), "sales", sqlText, nil, 0)
			if err == nil && i%2 == 0 && !reflect.DeepEqual(s.Masked, []string{"customer"}) {
				err = errors.New("masking lost under concurrency")
			}
			if err == nil && i%2 == 1 && s.Masked != nil {
				err = errors.New("masking leaked into another query")
			}
			done <- err
		}(i)
	}
	for i := 0; i < 20; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestClose(t *testing.T) {
	db, err := Load(context.Background(), "testdata", map[string]plan.Source{"sales": {Kind: "csv", Path: "sales.csv"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := db.dir
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("private copies left behind in %s", dir)
	}
	if _, err := db.Query(context.Background(), "sales", "SELECT 1", nil, 0); codeOf(err) != CodeSource {
		t.Fatalf("query after Close: %v", err)
	}
}

package sqlguard

import (
	"reflect"
	"strings"
	"testing"
)

// corpus is the guard's contract: every read here must pass, every write
// disguised as a read must be refused with the given code.
var corpus = []struct {
	sql  string
	code string // "" means accepted
}{
	// Plain reads.
	{"SELECT 1", ""},
	{"select * from sales", ""},
	{"SELECT region, SUM(amount) AS gmv FROM sales WHERE week = :week GROUP BY region", ""},
	{"SELECT region FROM sales;", ""},
	{"SELECT region FROM sales;;  -- trailing comment", ""},
	{"SELECT DISTINCT region FROM sales ORDER BY region LIMIT 5 OFFSET 2", ""},
	{"VALUES (1, 'a'), (2, 'b')", ""},
	{"SELECT a.region, b.target FROM sales a JOIN targets b ON a.region = b.region", ""},
	{"SELECT region, COUNT(*) FILTER (WHERE amount > 100) FROM sales GROUP BY region HAVING COUNT(*) > 1", ""},
	// CTEs, recursive CTEs and subqueries.
	{"WITH t AS (SELECT region, amount FROM sales) SELECT region, SUM(amount) FROM t GROUP BY region", ""},
	{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT x FROM c", ""},
	{"WITH a AS MATERIALIZED (SELECT 1 AS v), b AS NOT MATERIALIZED (SELECT v FROM a) SELECT * FROM b", ""},
	{"SELECT * FROM (SELECT region, amount FROM sales) WHERE amount > (SELECT AVG(amount) FROM sales)", ""},
	{"SELECT region FROM sales WHERE EXISTS (SELECT 1 FROM targets t WHERE t.region = sales.region)", ""},
	{"SELECT region FROM sales UNION SELECT region FROM targets EXCEPT SELECT 'x' INTERSECT SELECT 'y'", ""},
	// Window functions.
	{"SELECT region, amount, ROW_NUMBER() OVER (PARTITION BY region ORDER BY amount DESC) AS rn FROM sales", ""},
	{"SELECT week, SUM(amount) OVER w FROM sales WINDOW w AS (ORDER BY week ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", ""},
	{"SELECT LAG(amount, 1) OVER (ORDER BY week), NTILE(4) OVER (ORDER BY amount) FROM sales", ""},
	// Keywords inside strings, quoted identifiers and comments.
	{"SELECT 'DELETE FROM sales; DROP TABLE sales' AS s", ""},
	{"SELECT \"update\", [insert], `drop` FROM weird", ""},
	{"SELECT region /* DELETE FROM sales; */ FROM sales", ""},
	{"SELECT region -- ; DROP TABLE sales\nFROM sales", ""},
	{"SELECT 'it''s; ATTACH' FROM sales", ""},
	{"SELECT \"a\"\"; drop\" FROM sales", ""},
	{"SELECT replace(region, 'a', 'b') FROM sales", ""},
	{"SELECT REPLACE (region, 'a', 'b') FROM sales", ""},
	{"SELECT date('2026-01-01', '+1 day'), strftime('%Y', week) FROM sales", ""},
	{"SELECT region FROM sales WHERE note = 'now'", ""},
	{"SELECT x'00ff', 0x1F, 1e10, 1.5E-3, .5, 1_000 FROM sales", ""},
	{"SELECT json_extract(doc, '$.a') ->> '$.b', doc -> 'c' FROM docs", ""},
	{"SELECT 名前, 金額 FROM 売上", ""},
	{"SELECT CASE WHEN amount > 0 THEN 'up' ELSE 'down' END AS dir FROM sales", ""},
	{"SELECT CAST(amount AS INTEGER), amount % 7, amount || 'x' FROM sales", ""},
	{"SELECT * FROM pragma_table_info('sales')", ""},
	// Empty and lexical errors.
	{"", CodeEmpty},
	{"   -- only a comment\n /* and this */ ", CodeEmpty},
	{";", CodeEmpty},
	{"SELECT 'unterminated", CodeSyntax},
	{"SELECT \"unterminated", CodeSyntax},
	{"SELECT [unterminated", CodeSyntax},
	{"SELECT 1 /* unterminated", CodeSyntax},
	{"SELECT 1 # 2", CodeSyntax},
	{"SELECT 1\x00; DROP TABLE sales", CodeSyntax},
	{"SELECT '\xff'", CodeSyntax},
	// Several statements.
	{"SELECT 1; SELECT 2", CodeMulti},
	{"SELECT 1; DELETE FROM sales", CodeMulti},
	{"SELECT 1 /* x */ ; /* y */ DROP TABLE sales", CodeMulti},
	{"SELECT 'a;b'; ATTACH 'x.db' AS x", CodeMulti},
	{"SELECT 1;\n-- comment\nVACUUM", CodeMulti},
	// Other statements.
	{"DELETE FROM sales", CodeStatement},
	{"UPDATE sales SET amount = 0", CodeStatement},
	{"INSERT INTO sales VALUES (1)", CodeStatement},
	{"REPLACE INTO sales VALUES (1)", CodeStatement},
	{"CREATE TABLE x (a)", CodeStatement},
	{"DROP TABLE sales", CodeStatement},
	{"ALTER TABLE sales ADD COLUMN x", CodeStatement},
	{"ATTACH DATABASE '/tmp/x.db' AS x", CodeStatement},
	{"DETACH DATABASE x", CodeStatement},
	{"VACUUM INTO '/tmp/copy.db'", CodeStatement},
	{"PRAGMA query_only = 0", CodeStatement},
	{"PRAGMA table_info(sales)", CodeStatement},
	{"BEGIN", CodeStatement},
	{"COMMIT", CodeStatement},
	{"EXPLAIN SELECT 1", CodeStatement},
	{"EXPLAIN QUERY PLAN SELECT * FROM sales", CodeStatement},
	{"/* SELECT */ DELETE FROM sales", CodeStatement},
	{"(SELECT 1)", CodeStatement},
	{"ANALYZE", CodeStatement},
	{"REINDEX sales", CodeStatement},
	// Writes disguised as reads.
	{"WITH x AS (SELECT 1) DELETE FROM sales", CodeWrite},
	{"WITH x AS (SELECT 1) UPDATE sales SET amount = 0", CodeWrite},
	{"WITH x AS (SELECT 1) INSERT INTO sales SELECT * FROM x", CodeWrite},
	{"WITH x AS (SELECT 1) REPLACE INTO sales SELECT * FROM x", CodeWrite},
	{"SELECT * INTO backup FROM sales", CodeWrite},
	{"SELECT * FROM sales WHERE 1 = 1 RETURNING *", CodeWrite},
	{"WITH d AS (DELETE FROM sales RETURNING *) SELECT * FROM d", CodeWrite},
	{"SELECT 1 FROM sales WHERE region IN (SELECT region FROM (DELETE FROM sales))", CodeWrite},
	{"VALUES (1) UNION SELECT 1 FROM x; ", ""},
	{"SELECT release FROM sales", CodeWrite},
	{"SELECT 1 WHERE 0 AND CREATE", CodeWrite},
	// Functions that leave the database, and non-determinism.
	{"SELECT load_extension('/tmp/evil.so')", CodeFunc},
	{"SELECT LOAD_EXTENSION ('/tmp/evil.so', 'init')", CodeFunc},
	{"SELECT writefile('/tmp/x', 'y')", CodeFunc},
	{"SELECT fts3_tokenizer('simple')", CodeFunc},
	{"SELECT random()", CodeNondet},
	{"SELECT * FROM sales ORDER BY RANDOM() LIMIT 3", CodeNondet},
	{"SELECT hex(randomblob(8))", CodeNondet},
	{"SELECT CURRENT_TIMESTAMP", CodeNondet},
	{"SELECT date('now')", CodeNondet},
	{"SELECT * FROM sales WHERE week > strftime('%Y-%W', 'NOW', '-7 days')", CodeNondet},
	{"SELECT datetime()", CodeNondet},
	{"SELECT julianday(coalesce(NULL, 'now'))", CodeNondet},
	{"SELECT changes()", CodeNondet},
	{"SELECT datetime('2026-01-01 10:00', 'localtime')", CodeNondet},
	{"SELECT date(week, 'UTC') FROM sales", CodeNondet},
	{"SELECT 'localtime' AS tz, 'utc' AS z", ""},
	// Parameters.
	{"SELECT * FROM sales WHERE week = ?", CodeParam},
	{"SELECT * FROM sales WHERE week = ?1", CodeParam},
	{"SELECT * FROM sales WHERE week = @week", CodeParam},
	{"SELECT * FROM sales WHERE week = $week", CodeParam},
	{"SELECT * FROM sales WHERE week = : week", CodeSyntax},
}

func TestCorpus(t *testing.T) {
	if len(corpus) < 60 {
		t.Fatalf("corpus has %d statements, want at least 60", len(corpus))
	}
	refused := 0
	for _, c := range corpus {
		v := Check(c.sql)
		if v.Code != c.code || v.OK != (c.code == "") {
			t.Errorf("Check(%q) = %+v, want code %q", c.sql, v, c.code)
			continue
		}
		if !v.OK && (v.Reason == "" || v.Fix == "" || v.Line < 1 || v.Col < 1) {
			t.Errorf("Check(%q) refusal lacks reason, fix or position: %+v", c.sql, v)
		}
		if !v.OK {
			refused++
		}
	}
	t.Logf("RESULT sql-guard-bypass trials=%d reads-accepted=%d", refused, len(corpus)-refused)
}

func TestRefusalPosition(t *testing.T) {
	v := Check("SELECT region\nFROM sales;\n  DROP TABLE sales")
	if v.Code != CodeMulti || v.Line != 3 || v.Col != 3 {
		t.Fatalf("got %+v, want E-SQL-MULTI at 3:3", v)
	}
	v = Check("WITH x AS (SELECT 1)\n\tDELETE FROM sales")
	if v.Code != CodeWrite || v.Line != 2 || v.Col != 2 || !strings.Contains(v.Reason, "DELETE") {
		t.Fatalf("got %+v, want E-SQL-WRITE at 2:2 naming DELETE", v)
	}
}

func TestShape(t *testing.T) {
	cases := []struct {
		sql   string
		shape Shape
	}{
		{"SELECT region, SUM(amount) AS gmv FROM sales WHERE week = :week AND w2 = :w2 OR :week IS NULL GROUP BY region",
			Shape{Params: []string{"week", "w2"}, Flat: true, ReadsTable: true, Items: []Item{
				{Names: []string{"region"}},
				{Alias: "gmv", Names: []string{"sum", "amount", "as", "gmv"}},
			}}},
		{"SELECT DISTINCT *, s.*, upper(\"Customer\") c FROM sales s",
			Shape{Flat: true, ReadsTable: true, Items: []Item{
				{Star: true},
				{Star: true, Names: []string{"s"}},
				{Alias: "c", Names: []string{"upper", "customer", "c"}},
			}}},
		{"SELECT (SELECT 1)", Shape{}},
		{"SELECT date(:d)", Shape{Params: []string{"d"}, Flat: true, Clock: true, Items: []Item{{Names: []string{"date"}}}}},
		{"WITH t AS (SELECT 1) SELECT * FROM t", Shape{ReadsTable: true}},
		{"SELECT 17919", Shape{Flat: true, Items: []Item{{}}}},
		{"SELECT 'from'", Shape{Flat: true, Items: []Item{{}}}}, // a word inside a string is no FROM
		{"SELECT 1 UNION ALL SELECT 2", Shape{Compound: true}},
		{"VALUES (1)", Shape{}},
	}
	for _, c := range cases {
		v, got := Inspect(c.sql)
		if !v.OK {
			t.Errorf("Inspect(%q) refused: %+v", c.sql, v)
			continue
		}
		if !reflect.DeepEqual(got, c.shape) {
			t.Errorf("Inspect(%q) shape\n got %+v\nwant %+v", c.sql, got, c.shape)
		}
	}
}

func TestLongStatement(t *testing.T) {
	sql := "SELECT '" + strings.Repeat("a", MaxLen) + "'"
	if v := Check(sql); v.Code != CodeSize {
		t.Fatalf("got %+v, want %s", v, CodeSize)
	}
}

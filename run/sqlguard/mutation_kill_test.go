package sqlguard

import (
	"reflect"
	"strings"
	"testing"
)

// TestEveryWriteWordRefusedAttacker hides each write keyword at the end of
// an otherwise harmless read. The list is written out here rather than
// read from the guard, so that a word dropped from the guard fails.
func TestEveryWriteWordRefusedAttacker(t *testing.T) {
	for _, w := range []string{
		"INSERT", "UPDATE", "DELETE", "INTO", "UPSERT", "CREATE", "DROP", "ALTER", "REINDEX", "ANALYZE",
		"ATTACH", "DETACH", "VACUUM", "PRAGMA", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE",
		"RETURNING", "TRIGGER", "REPLACE",
	} {
		v := Check("SELECT a FROM t WHERE b = 1 " + strings.ToLower(w))
		if v.Code != CodeWrite || !strings.Contains(v.Reason, w) || v.Col != 29 {
			t.Errorf("%s: %+v, want %s at column 29", w, v, CodeWrite)
		}
	}
	for _, w := range []string{"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"} {
		if v := Check("SELECT " + w); v.Code != CodeNondet {
			t.Errorf("%s: %+v, want %s", w, v, CodeNondet)
		}
	}
}

// TestExplainAndOtherStatements checks that EXPLAIN has its own reason and
// other statements do not borrow it.
func TestExplainAndOtherStatements(t *testing.T) {
	if v := Check("EXPLAIN SELECT 1"); v.Code != CodeStatement || !strings.Contains(v.Reason, "query plan") {
		t.Errorf("EXPLAIN: %+v", v)
	}
	if v := Check("SHOW TABLES"); v.Code != CodeStatement || strings.Contains(v.Reason, "query plan") || !strings.Contains(v.Reason, `"SHOW"`) {
		t.Errorf("SHOW: %+v", v)
	}
}

// TestSizeAndByteBoundaries checks the edges of the cheap checks: a
// statement of exactly MaxLen bytes runs, one byte more does not; a NUL
// byte is found wherever it is, the first byte included.
func TestSizeAndByteBoundaries(t *testing.T) {
	base := "SELECT 1"
	if v := Check(base + strings.Repeat(" ", MaxLen-len(base))); !v.OK {
		t.Errorf("MaxLen bytes: %+v", v)
	}
	if v := Check(base + strings.Repeat(" ", MaxLen-len(base)+1)); v.Code != CodeSize || v.Offset != 0 || v.Line != 1 || v.Col != 1 {
		t.Errorf("MaxLen+1 bytes: %+v", v)
	}
	if v := Check(base + strings.Repeat(" ", 64<<10-len(base)+1)); v.Code != CodeSize {
		t.Errorf("a statement over the documented 64 KiB: %+v", v)
	}
	for _, tt := range []struct {
		sql      string
		off, col int
	}{{"\x00SELECT 1", 0, 1}, {"SELECT 1\x00", 8, 9}, {"SELECT 'é\x00'", 10, 10}, {"SELECT 1 \xff", 9, 10}} {
		v := Check(tt.sql)
		if v.Code != CodeSyntax || v.Offset != tt.off || v.Col != tt.col || !strings.Contains(v.Reason, "NUL byte or bytes that are not UTF-8") {
			t.Errorf("%q: %+v, want %s at offset %d column %d", tt.sql, v, CodeSyntax, tt.off, tt.col)
		}
	}
}

// TestClockStringAfterClosedCall checks the call stack: 'now' outside a
// date function that has been closed is a plain string.
func TestClockStringAfterClosedCall(t *testing.T) {
	if v := Check("SELECT date('2026-01-01') AS d, 'now' AS label"); !v.OK {
		t.Errorf("closed call: %+v", v)
	}
	if v := Check("SELECT date(upper('x'), 'now')"); v.Code != CodeNondet {
		t.Errorf("'now' inside date after a nested call: %+v", v)
	}
}

// TestMinusIsNotACommentAttacker puts a second statement after a lone
// minus: only "--" starts a comment, so the DROP is seen.
func TestMinusIsNotACommentAttacker(t *testing.T) {
	if v := Check("SELECT 2 - 1; DROP TABLE t"); v.Code != CodeMulti {
		t.Errorf("%+v, want %s", v, CodeMulti)
	}
	if v := Check("SELECT x'' AS empty_blob, x'00ff' AS b"); !v.OK {
		t.Errorf("blob literals: %+v", v)
	}
}

// TestMalformedTailsDoNotPanic ends statements in the middle of a token:
// the lexer must look before it reads past the end.
func TestMalformedTailsDoNotPanic(t *testing.T) {
	for _, sql := range []string{"SELECT 1 -", "SELECT 1e", "SELECT 1e+", "SELECT x'", "SELECT 1 /", "SELECT :", "SELECT ["} {
		_ = Check(sql) // a panic fails the test
	}
}

// TestShapeOfLiteralsAndAliases pins how numbers, quoted names and
// aliases are read, since masking relies on Items: a hex or exponent
// number is one token, not a number followed by an alias.
func TestShapeOfLiteralsAndAliases(t *testing.T) {
	cases := []struct {
		sql  string
		item Item
	}{
		{"SELECT 0x1F", Item{}},
		{"SELECT 1e5", Item{}},
		{"SELECT 1.5e-3", Item{}},
		{"SELECT 1_000", Item{}},
		{`SELECT a AS "Total"`, Item{Alias: "total", Names: []string{"a", "as", "total"}}},
		{`SELECT a 'label'`, Item{Alias: "label", Names: []string{"a"}}},
		{`SELECT "a""b"`, Item{Names: []string{`a"b`}}},
		{"SELECT [my col]", Item{Names: []string{"my col"}}},
		{"SELECT [] x", Item{Alias: "x", Names: []string{"", "x"}}},
		{"SELECT a + b", Item{Names: []string{"a", "b"}}},
	}
	for _, c := range cases {
		v, s := Inspect(c.sql)
		if !v.OK || !s.Flat || len(s.Items) != 1 || !reflect.DeepEqual(s.Items[0], c.item) {
			t.Errorf("Inspect(%q) = %+v, %+v; want one item %+v", c.sql, v, s, c.item)
		}
	}
}

// TestFromClauseFunctions checks when a FROM clause counts as calling a
// function: keywords before "(" in a join are not calls; a table-valued
// function is, at the top level.
func TestFromClauseFunctions(t *testing.T) {
	cases := []struct {
		sql  string
		flat bool
	}{
		{"SELECT a FROM t JOIN u ON (t.id = u.id)", true},
		{"SELECT a FROM t JOIN u USING (id)", true},
		{"SELECT a FROM t JOIN u ON t.x = u.x AND (u.y = 1)", true},
		{"SELECT a FROM t JOIN u ON t.x = u.x OR (u.y = 1)", true},
		{"SELECT a FROM t JOIN u ON NOT (u.y = 1)", true},
		{"SELECT a FROM t JOIN u ON u.y IN (1, 2)", true},
		{"SELECT a FROM t JOIN u ON u.y IS (1)", true},
		{"SELECT a FROM json_each(x)", false},
		{"SELECT a FROM t JOIN u ON lower(t.x) = u.x", false},
		{"SELECT lower(a) FROM t WHERE upper(b) = 'X'", true},
	}
	for _, c := range cases {
		v, s := Inspect(c.sql)
		if !v.OK || s.Flat != c.flat {
			t.Errorf("Inspect(%q) = %+v, flat %v; want flat %v", c.sql, v, s.Flat, c.flat)
		}
	}
}

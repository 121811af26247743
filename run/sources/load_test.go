package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

func loadErr(t *testing.T, base string, srcs map[string]plan.Source) *LoadError {
	t.Helper()
	db, err := Load(context.Background(), base, srcs)
	if err == nil {
		db.Close()
		t.Fatalf("Load(%v) succeeded", srcs)
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error is %T, not *LoadError: %v", err, err)
	}
	return le
}

func TestLoadCollectsErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ragged.csv"), []byte("a,b\n1,2\n3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.csv"), []byte("region,customer\nn,x\n"), 0o644)
	le := loadErr(t, dir, map[string]plan.Source{
		"a_kind":    {Kind: "xlsx", Path: "ok.csv"},
		"b_missing": {Kind: "csv", Path: "missing.csv"},
		"c_mask":    {Kind: "csv", Path: "ok.csv", MaskColumns: []string{"custmer"}},
		"d_ragged":  {Kind: "csv", Path: "ragged.csv"},
		"sqlite_x":  {Kind: "csv", Path: "ok.csv"},
	})
	var got []string
	for _, d := range le.Diagnostics {
		got = append(got, d.Code)
		if d.Fix == "" || d.Message == "" || d.File == "" {
			t.Errorf("incomplete diagnostic %+v", d)
		}
		// 0:0 is no position: a whole-file problem is placed at 1:1.
		if d.Line < 1 || d.Col < 1 {
			t.Errorf("diagnostic without a position: %s", d)
		}
	}
	want := []string{CodeRagged, CodeOpen, CodeKind, CodeMask, CodeName}
	if !equalSets(got, want) {
		t.Fatalf("codes %v, want %v\n%v", got, want, le)
	}
	for _, d := range le.Diagnostics {
		switch d.Code {
		case CodeMask:
			if !strings.Contains(d.Fix, `did you mean "customer"`) {
				t.Errorf("mask fix has no suggestion: %q", d.Fix)
			}
		case CodeRagged:
			if d.Line != 3 || !strings.HasSuffix(d.File, "ragged.csv") || !strings.Contains(d.Message, `"b"`) {
				t.Errorf("ragged diagnostic %+v", d)
			}
		}
	}
	if v := Validate(context.Background(), dir, map[string]plan.Source{"d_ragged": {Kind: "csv", Path: "ragged.csv"}}); len(v) != 1 || v[0].Code != CodeRagged {
		t.Errorf("Validate: %v", v)
	}
	if v := Validate(context.Background(), dir, map[string]plan.Source{"ok": {Kind: "csv", Path: "ok.csv"}}); v != nil {
		t.Errorf("Validate of a good source: %v", v)
	}
	if !strings.Contains(le.Error(), "E-CSV-RAGGED") {
		t.Errorf("Error() text: %s", le.Error())
	}
}

func TestDeclaredField(t *testing.T) {
	for _, tt := range []struct {
		code, field string
		ok          bool
	}{
		{CodeOpen, "path", true},
		{CodeKind, "kind", true},
		{CodeTable, "table", true},
		{CodeMask, "mask_columns", true},
		{CodeName, "", true},
		{CodeSQLite, "", false},
		{CodeWAL, "", false},
		{CodeRagged, "", false},
		{CodeEncoding, "", false},
	} {
		if f, ok := DeclaredField(tt.code); f != tt.field || ok != tt.ok {
			t.Errorf("DeclaredField(%s) = %q, %v; want %q, %v", tt.code, f, ok, tt.field, tt.ok)
		}
	}
}

func equalSets(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// makeSQLite writes a small database with two tables and a view.
func makeSQLite(t *testing.T, path string) {
	t.Helper()
	w, err := writable(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, q := range []string{
		"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer VARCHAR(40), amount DECIMAL(10,2), ts DATETIME, pic BLOB, score DOUBLE)",
		"INSERT INTO orders VALUES (1, 'Acme', 10.5, '2026-01-02 10:00:00', x'00ff', 1.5), (2, 'Beta', 7, '2026-01-03 11:00:00', NULL, NULL)",
		"CREATE TABLE regions (name TEXT, target INT)",
		"INSERT INTO regions VALUES ('north', 100)",
		"CREATE VIEW big AS SELECT * FROM orders WHERE amount > 8",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadSQLite(t *testing.T) {
	dir := t.TempDir()
	makeSQLite(t, filepath.Join(dir, "shop.db"))
	ctx := context.Background()
	db, err := Load(ctx, dir, map[string]plan.Source{
		"shop": {Kind: "sqlite", Path: "shop.db", Table: "Orders", MaskColumns: []string{"customer"}},
		"all":  {Kind: "sqlite", Path: "shop.db", MaskColumns: []string{"orders.customer"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Query(ctx, "shop", "SELECT id, customer, amount, ts, pic, score FROM shop ORDER BY id", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{int64(1), "***", 10.5, "2026-01-02 10:00:00", "00ff", 1.5},
		{int64(2), "***", 7.0, "2026-01-03 11:00:00", nil, nil},
	}
	if !reflect.DeepEqual(s.Rows, want) || !reflect.DeepEqual(s.Types, []string{"INTEGER", "TEXT", "REAL", "TEXT", "TEXT", "REAL"}) {
		t.Fatalf("rows %#v types %v", s.Rows, s.Types)
	}
	// With table: only that table is there, under the source key.
	for _, q := range []string{"SELECT * FROM regions", "SELECT * FROM orders", "SELECT * FROM big"} {
		if _, err := db.Query(ctx, "shop", q, nil, 0); codeOf(err) != CodeExec {
			t.Errorf("%s on shop: %v, want %s", q, err, CodeExec)
		}
	}
	// Without table: every table under its own name; views are not copied.
	s, err = db.Query(ctx, "all", "SELECT o.customer, r.name FROM orders o, regions r ORDER BY o.id", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Masked, []string{"customer"}) || s.Rows[0][1] != "north" {
		t.Fatalf("all: %+v", s)
	}
	if _, err := db.Query(ctx, "all", "SELECT * FROM big", nil, 0); codeOf(err) != CodeExec {
		t.Errorf("view was exposed: %v", err)
	}
	// The query runs on the bytes hashed at load time, not on later edits.
	w, _ := writable(filepath.Join(dir, "shop.db"))
	w.Exec("DELETE FROM orders")
	w.Close()
	s, err = db.Query(ctx, "shop", "SELECT COUNT(*) AS n FROM shop", nil, 0)
	if err != nil || s.Rows[0][0] != int64(2) {
		t.Fatalf("source edit leaked into the run: %v %v", s, err)
	}
}

func TestLoadSQLiteErrors(t *testing.T) {
	dir := t.TempDir()
	makeSQLite(t, filepath.Join(dir, "shop.db"))
	os.WriteFile(filepath.Join(dir, "notdb.db"), []byte("region,amount\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.db"), nil, 0o644)
	w, _ := writable(filepath.Join(dir, "none.db"))
	w.Exec("CREATE VIEW v AS SELECT 1")
	w.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "shop.db"))
	os.WriteFile(filepath.Join(dir, "wal.db"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "wal.db-wal"), []byte("pending"), 0o644)
	cases := []struct {
		src  plan.Source
		code string
		hint string
	}{
		{plan.Source{Kind: "sqlite", Path: "shop.db", Table: "oders"}, CodeTable, `did you mean "orders"`},
		{plan.Source{Kind: "sqlite", Path: "notdb.db"}, CodeSQLite, "kind: csv"},
		{plan.Source{Kind: "sqlite", Path: "empty.db"}, CodeSQLite, ""},
		{plan.Source{Kind: "sqlite", Path: "none.db"}, CodeTable, ""},
		{plan.Source{Kind: "sqlite", Path: "wal.db"}, CodeWAL, "wal_checkpoint"},
		{plan.Source{Kind: "sqlite", Path: "shop.db", MaskColumns: []string{"regions.customer"}}, CodeMask, ""},
	}
	for _, c := range cases {
		le := loadErr(t, dir, map[string]plan.Source{"x": c.src})
		d := le.Diagnostics[0]
		if d.Code != c.code || !strings.Contains(d.Fix, c.hint) {
			t.Errorf("%+v: got %s %q (fix %q), want %s with %q", c.src, d.Code, d.Message, d.Fix, c.code, c.hint)
		}
	}
}

func TestTools(t *testing.T) {
	dir := t.TempDir()
	makeSQLite(t, filepath.Join(dir, "shop.db"))
	b, _ := os.ReadFile("testdata/sales.csv")
	os.WriteFile(filepath.Join(dir, "sales.csv"), b, 0o644)
	db, err := Load(context.Background(), dir, map[string]plan.Source{
		"sales": {Kind: "csv", Path: "sales.csv", MaskColumns: []string{"customer"}},
		"shop":  {Kind: "sqlite", Path: "shop.db"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := json.MarshalIndent(db.Tools(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := "testdata/tools.golden.json"
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("tools differ from %s (run with -update to accept):\n%s", golden, got)
	}

	// Call routes to Query and checks its arguments.
	ctx := context.Background()
	s, err := db.Call(ctx, "db_query__sales", map[string]any{"sql": "SELECT COUNT(*) AS n FROM sales WHERE region = :r", "params": map[string]any{"r": "north"}}, 0)
	if err != nil || s.Rows[0][0] != int64(2) {
		t.Fatalf("Call: %v %v", s, err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		code string
	}{
		{"db_query__nope", map[string]any{"sql": "SELECT 1"}, CodeSource},
		{"http_fetch", map[string]any{"sql": "SELECT 1"}, CodeSource},
		{"db_query__sales", map[string]any{}, CodeArgs},
		{"db_query__sales", map[string]any{"sql": 1}, CodeArgs},
		{"db_query__sales", map[string]any{"sql": "SELECT 1", "params": "x"}, CodeArgs},
		{"db_query__sales", map[string]any{"sql": "SELECT 1", "limit": 3}, CodeArgs},
	} {
		if _, err := db.Call(ctx, c.tool, c.args, 0); codeOf(err) != c.code {
			t.Errorf("Call(%s, %v): %v, want %s", c.tool, c.args, err, c.code)
		}
	}
}

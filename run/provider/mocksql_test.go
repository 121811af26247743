package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/run/sources"
)

const storesCSV = `store,city,opened,staff,revenue_2024,revenue_2025
s01,Lyon,2019-03-01,12,1700000,1840000
s02,Lille,2020-06-15,9,1300000,1215000
s03,Nantes,2021-01-10,7,990000,980500
s04,Nice,2018-09-20,15,2000000,2310000
s05,Rennes,2022-04-05,6,700000,720250
`

func TestDescribedTables(t *testing.T) {
	tests := []struct {
		desc string
		want []dbTable
	}{
		{`Query the data source "s" with one read-only SQLite statement (SELECT, WITH … SELECT or VALUES). Table: stores(store TEXT, staff INTEGER, margin REAL masked). Put values in params.`,
			[]dbTable{{"stores", []dbColumn{{"store", false}, {"staff", true}, {"margin", true}}}}},
		{`Tables: a(x INTEGER); b(y TEXT, z NUMERIC). Put values in params.`,
			[]dbTable{{"a", []dbColumn{{"x", true}}}, {"b", []dbColumn{{"y", false}, {"z", true}}}}},
		{`A tool without a table list.`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		if got := describedTables(tt.desc); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("describedTables(%q) = %+v, want %+v", tt.desc, got, tt.want)
		}
	}
}

// TestHeuristicSQL checks the SQL the mock writes for each kind of
// question, and that it computes the same answer as the SQL a person
// would write, through the real sources package (its tool description
// and its SQL guard).
func TestHeuristicSQL(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stores.csv"), []byte(storesCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := sources.Load(ctx, dir, map[string]plan.Source{"stores": {Kind: "csv", Path: "stores.csv"}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	info := db.Tools()[0]
	tool := ToolDecl{Name: info.Name, Description: info.Description, Schema: info.Schema}
	tests := []struct {
		question, sql, answer string // answer: a query giving the same first cell
		params                map[string]any
	}{
		{"How many staff does the store with the highest revenue in 2025 have?",
			"SELECT staff FROM stores ORDER BY revenue_2025 DESC LIMIT 1", "SELECT 15", nil},
		{"Which store had the highest revenue in 2024?",
			"SELECT store FROM stores ORDER BY revenue_2024 DESC LIMIT 1", "SELECT 's04'", nil},
		{"What was the highest revenue in 2025?",
			"SELECT revenue_2025 FROM stores ORDER BY revenue_2025 DESC LIMIT 1", "SELECT MAX(revenue_2025) FROM stores", nil},
		{"Which city has the store with the fewest staff?",
			"SELECT city FROM stores ORDER BY staff ASC LIMIT 1", "SELECT 'Rennes'", nil},
		{"What was the total revenue of all stores in 2025?",
			"SELECT SUM(revenue_2025) AS total_revenue_2025 FROM stores", "SELECT SUM(revenue_2025) FROM stores", nil},
		{"What is the average number of staff per store?",
			"SELECT AVG(staff) AS average_staff FROM stores", "SELECT AVG(staff) FROM stores", nil},
		{"How many stores are there?",
			"SELECT COUNT(*) AS number_of_stores FROM stores", "SELECT 5", nil},
		{"How many stores are in 'Nice'?",
			"SELECT COUNT(*) AS number_of_stores FROM stores WHERE lower(:v1) IN (lower(store), lower(city), lower(opened))", "SELECT 1",
			map[string]any{"v1": "Nice"}},
		{"How much revenue did the store in Lyon make in 2025?",
			"SELECT revenue_2025 FROM stores WHERE lower(:v1) IN (lower(store), lower(city), lower(opened)) LIMIT 5", "SELECT 1840000",
			map[string]any{"v1": "Lyon"}},
		{"How are things going?", "SELECT * FROM stores LIMIT 5", "SELECT 's01'", nil},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			for _, seed := range []int64{1, 2, 13} {
				req := Request{Node: "agent", Kind: KindAgent, Seed: seed, Tools: []ToolDecl{tool}, Messages: userMsg(tt.question)}
				resp, _ := complete(t, NewMock(Options{}), req)
				var args map[string]any
				if err := json.Unmarshal(resp.ToolCalls[0].Args, &args); err != nil {
					t.Fatal(err)
				}
				if args["sql"] != tt.sql {
					t.Fatalf("seed %d: sql = %q, want %q", seed, args["sql"], tt.sql)
				}
				if p, _ := args["params"].(map[string]any); !reflect.DeepEqual(p, tt.params) {
					t.Fatalf("seed %d: params = %v, want %v", seed, p, tt.params)
				}
				snap, err := db.Call(ctx, info.Name, args, 0)
				if err != nil {
					t.Fatalf("the mock's SQL is refused: %v", err)
				}
				want, err := db.Query(ctx, "stores", tt.answer, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(snap.Rows) == 0 || !reflect.DeepEqual(snap.Rows[0][0], want.Rows[0][0]) {
					t.Errorf("the mock's query answers %v, want %v", snap.Rows, want.Rows[0][0])
				}
			}
		})
	}
}

func TestHeuristicNoMatch(t *testing.T) {
	stores := []dbTable{{"stores", []dbColumn{{"store", false}, {"staff", true}}}}
	for _, q := range []string{"", "hello", "tell me about stores"} {
		if sql, _, ok := heuristicQuery(stores, q); ok {
			t.Errorf("%q: want the sample query, got %q", q, sql)
		}
	}
	if _, _, ok := heuristicQuery(nil, "How many staff?"); ok {
		t.Error("no tables: want the sample query")
	}
	// A value the data does not hold still makes a query (which returns
	// no rows: the answer then cites nothing).
	sql, params, ok := heuristicQuery(stores, "What is the staff of the store in Paris?")
	if !ok || sql != "SELECT staff FROM stores WHERE lower(:v1) IN (lower(store)) LIMIT 5" || params["v1"] != "Paris" {
		t.Errorf("got %q %v %v", sql, params, ok)
	}
	// Without a params argument in the tool's schema a filter cannot be
	// passed: the mock samples the table.
	tool := ToolDecl{Name: "db_query__stores", Description: "Table: stores(store TEXT, staff INTEGER).",
		Schema: map[string]any{"type": "object", "required": []any{"sql"}, "properties": map[string]any{"sql": map[string]any{"type": "string"}}}}
	resp, _ := complete(t, NewMock(Options{}), Request{Node: "agent", Kind: KindAgent, Tools: []ToolDecl{tool}, Messages: userMsg("What is the staff of the store in Paris?")})
	if got := string(resp.ToolCalls[0].Args); got != `{"sql":"SELECT * FROM stores LIMIT 5"}` {
		t.Errorf("got %s", got)
	}
}

// FuzzHeuristicQuery: any description and question give either no query
// or one that names a listed table, without panicking.
func FuzzHeuristicQuery(f *testing.F) {
	f.Add("Table: stores(store TEXT, staff INTEGER, revenue_2025 REAL masked).", "How many staff does the store with the highest revenue in 2025 have?")
	f.Add("Tables: a(x INTEGER); b(y TEXT, z NUMERIC).", `What is the total z for "y y"?`)
	f.Add("Table: t(", "How many")
	f.Add("Tables: (); x(a b c, , d)", "Which 'a' in Ä?")
	f.Fuzz(func(t *testing.T, desc, question string) {
		tables := describedTables(desc)
		sql, params, ok := heuristicQuery(tables, question)
		if !ok {
			return
		}
		if !strings.HasPrefix(sql, "SELECT ") || !strings.Contains(sql, " FROM ") {
			t.Fatalf("not a query: %q", sql)
		}
		for name := range params {
			if !strings.Contains(sql, ":"+name) {
				t.Fatalf("parameter %s unused in %q", name, sql)
			}
		}
	})
}

package evidence

import (
	"reflect"
	"strings"
	"testing"
)

func TestSQLNames(t *testing.T) {
	for _, tc := range []struct {
		sql            string
		tables, idents []string
	}{
		{"SELECT region, SUM(orders) AS orders, SUM(amount) AS gmv FROM sales WHERE week = :week GROUP BY region ORDER BY region",
			[]string{"sales"}, []string{"region", "orders", "orders", "amount", "gmv", "week", "region", "region"}},
		{`SELECT o.total, "Cust Name" FROM orders o JOIN customers c ON o.cid = c.id WHERE note = 'from x' AND n > 2.5`,
			[]string{"orders", "customers"}, []string{"o", "total", "Cust Name", "o", "c", "o", "cid", "c", "id", "note", "n"}},
		{"SELECT * FROM a, b", []string{"a", "b"}, nil},
	} {
		tables, idents := sqlNames(tc.sql)
		if !reflect.DeepEqual(tables, tc.tables) || !reflect.DeepEqual(idents, tc.idents) {
			t.Errorf("%s:\n tables %q want %q\n idents %q want %q", tc.sql, tables, tc.tables, idents, tc.idents)
		}
	}
}

// TestNamesInventedByAModel: a table or column a model made up, in a
// marker or in backticks, is unknown, with up to three nearest names; the
// names the query read (its columns, and those its SQL names) are known.
func TestNamesInventedByAModel(t *testing.T) {
	n := NamesOf([]*Snapshot{{Source: "sales", Tool: "db_query__sales",
		SQL:     "SELECT region, SUM(orders) AS orders, SUM(amount) AS gmv FROM sales WHERE week = :week GROUP BY region",
		Columns: []string{"region", "orders", "gmv"}, Rows: [][]any{{"north", int64(3), 1.5}}}}, []string{"avg_order"})
	for _, ref := range []string{"sales.amount", "sales.gmv", "SALES.Region", "sales.week"} {
		if why := n.Column(ref); why != "" {
			t.Errorf("%s: %s", ref, why)
		}
	}
	if why := n.Table("sales"); why != "" {
		t.Error(why)
	}
	for ref, want := range map[string]string{
		"sales.amout": `no snapshot of table "sales" has a column "amout"; nearest: "amount", "gmv", "week"`,
		"sale.amount": `no snapshot of the run queries table "sale"; nearest: "sales"`,
	} {
		if got := n.Column(ref); got != want {
			t.Errorf("%s:\n got %s\nwant %s", ref, got, want)
		}
	}
	text := "GMV sums `amount` over `sales`, led by `North`; see `sales.amout`, `avg_order` and `revenu`, not `SUM(x)`."
	var got []string
	for _, u := range n.Backticked(text) {
		if text[u.Start:u.End] != u.Text {
			t.Errorf("offsets %d-%d do not hold %q", u.Start, u.End, u.Text)
		}
		got = append(got, u.Text+" "+u.Reason)
	}
	want := []string{
		"`sales.amout` " + `no snapshot of table "sales" has a column "amout"; nearest: "amount", "gmv", "week"`,
		"`revenu` " + `no snapshot of the run has a table or column "revenu", and it is no metric or input; nearest: "region", "week", "amount"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("backticked:\n got %q\nwant %q", got, want)
	}
}

// FuzzNames feeds hostile SQL and report text to the name reader: it never
// panics, and every unknown name it reports is a backticked span of the
// text.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"SELECT a FROM t", `SELECT "x y", [z] FROM 't' JOIN u ON 1`, "`a.b`", "'unclosed", "`", "FROM , ,", "\"\xff"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, sql, text string) {
		n := NamesOf([]*Snapshot{{Source: "sales", Tool: "db_query__sales", SQL: sql, Columns: []string{"gmv"}}}, []string{"m"})
		_ = n.Column("sales.x")
		for _, u := range n.Backticked(text) {
			if u.Start < 0 || u.End > len(text) || u.Start >= u.End || text[u.Start:u.End] != u.Text || text[u.Start] != '`' || text[u.End-1] != '`' {
				t.Fatalf("bad span %+v in %q", u, text)
			}
		}
	})
}

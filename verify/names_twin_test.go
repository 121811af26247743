package verify

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/evidence"
)

// nameSQL and nameWords are the pieces TestNamesJSTwin builds snapshots,
// names and texts from: keywords in any case, FROM lists and JOINs,
// quoted identifiers, literals, params, numbers, function calls, typos,
// mixed case and names in other scripts (Σ, İ and é lower-case
// differently in Go and in JavaScript's toLowerCase).
var (
	nameSQL = []string{"SELECT ", "select ", " FROM ", " from ", " JOIN ", " join ", "sales", "Sales", "SALES", "refunds", "orders",
		"Été_ventes", `"Ünit"`, "`t x`", "[brk]", "'str ''x'' lit'", "'unterminated", ", ", ",", " AS ", "sum(", "SUM (", ")",
		"amount", "amout", "Amount", " WHERE ", ":week", "@p", "$1", "12.5e3", "1x", " = ", ".", "a.b", "region", "regoin",
		"customer", "\n", "\t", "(", "ΣΑΣ", "İd", "naïve", `"`, "[", "`", "x_1", "_"}
	nameWords = []string{"sales", "Sales", "amount", "AMOUNT", "amout", "refunds", "orders", "north", "North", "region", "regoin",
		"week", "gmv", "Été", "ΣΑΣ", "İd", "x_1", "a.b", "sales.amount", "SALES.Amount", "sales.amout", "refunds.amount", "orders.x",
		"t x", "brk", "Ünit", "1x", "_", "", "a.b.c", "str", "sum", "gmv_total", "northh"}
)

// TestNamesJSTwin runs the bundle page's name check (page.js) under node
// against evidence.Names on random snapshots (a fixed seed): the same
// message for every table and column, the same unknown names in backticks
// at the same byte offsets.
func TestNamesJSTwin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; the browser twin tests cover the same code")
	}
	type check struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
		Want any    `json:"want"`
	}
	type nameCase struct {
		Snaps  []*evidence.Snapshot `json:"snaps"`
		Extra  []string             `json:"extra"`
		Checks []check              `json:"checks"`
	}
	r := rand.New(rand.NewPCG(7, 2026))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	var cases []nameCase
	for range 300 {
		var c nameCase
		for k := r.IntN(4); k > 0; k-- {
			var sql strings.Builder
			for m := r.IntN(14); m > 0; m-- {
				sql.WriteString(pick(nameSQL))
			}
			s := &evidence.Snapshot{Tool: "db_query__x", SQL: sql.String(), Columns: []string{}, Rows: [][]any{}}
			if r.IntN(5) == 0 {
				s.Tool = "merge"
			}
			if r.IntN(3) > 0 {
				s.Source = pick(nameWords)
			}
			for m := r.IntN(4); m > 0; m-- {
				s.Columns = append(s.Columns, pick(nameWords))
			}
			for m := r.IntN(3); m > 0; m-- {
				s.Rows = append(s.Rows, []any{pick(nameWords), 1.5, nil})
			}
			c.Snaps = append(c.Snaps, s)
		}
		for m := r.IntN(3); m > 0; m-- {
			c.Extra = append(c.Extra, pick(nameWords))
		}
		ns := evidence.NamesOf(c.Snaps, c.Extra)
		for range 8 {
			w := pick(nameWords)
			c.Checks = append(c.Checks, check{"table", w, ns.Table(w)})
			if strings.Contains(w, ".") {
				c.Checks = append(c.Checks, check{"column", w, ns.Column(w)})
			}
		}
		var text strings.Builder
		for m := r.IntN(10); m > 0; m-- {
			switch r.IntN(3) {
			case 0:
				text.WriteString("`" + pick(nameWords) + "`")
			case 1:
				text.WriteString(pick([]string{" ", "`", "中文 ", "é", "x"}))
			default:
				text.WriteString(pick(nameWords))
			}
		}
		un := ns.Backticked(text.String())
		if un == nil {
			un = []evidence.UnknownName{}
		}
		c.Checks = append(c.Checks, check{"backticked", text.String(), un})
		cases = append(cases, c)
	}
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "names.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	out, err := exec.Command(node, abs("testdata/names_twin_check.js"), abs("../evidence/render/assets/report.js"), abs("assets/page.js"), file).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("page.js judges names unlike evidence.Names: %v", err)
	}
}

package sources

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/run/sqlguard"
)

// TestDocsMaskingTable re-runs the masking examples of docs/sources.md so
// that the documentation cannot drift from the behaviour.
func TestDocsMaskingTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/sources.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, section, _ := strings.Cut(doc, "## Masking")
	section, _, _ = strings.Cut(section, "## Snapshots")
	row := regexp.MustCompile("(?m)^\\| `((?:SELECT|WITH)[^`]*)` \\| (.*) \\|$")
	ticks := regexp.MustCompile("`([^`]*)`")
	db := loadSales(t, nil)
	n := 0
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		var want []string
		if !strings.HasPrefix(m[2], "none") {
			for _, c := range ticks.FindAllStringSubmatch(m[2], -1) {
				want = append(want, c[1])
			}
		}
		var params map[string]any
		if strings.Contains(m[1], ":c") {
			params = map[string]any{"c": "Acme Ltd"}
		}
		s := query(t, db, m[1], params, 0)
		if !reflect.DeepEqual(s.Masked, want) {
			t.Errorf("docs example %q: masked %v, docs say %v", m[1], s.Masked, want)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("found only %d masking examples in docs/sources.md", n)
	}
	for _, code := range []string{
		sqlguard.CodeEmpty, sqlguard.CodeSize, sqlguard.CodeSyntax, sqlguard.CodeMulti, sqlguard.CodeStatement,
		sqlguard.CodeWrite, sqlguard.CodeFunc, sqlguard.CodeNondet, sqlguard.CodeParam,
		CodeKind, CodeOpen, CodeName, CodeSQLite, CodeWAL, CodeTable, CodeMask, CodeEncoding, CodeEmpty, CodeHeader,
		CodeDupCol, CodeQuote, CodeRagged, CodeSource, CodeArgs, "E-SQL-PARAM-MISSING", CodeExec, CodeTimeout, CodeResult,
	} {
		if !strings.Contains(doc, "`"+code) {
			t.Errorf("code %s is not documented in docs/sources.md", code)
		}
	}
}

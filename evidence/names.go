package evidence

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/diag"
)

// Names are the table and column names a report may write: a name is
// evidence too, and a report that calls a column "amout" cites something
// no query ever read. The run engine (when it checks a report) and the
// HTML report (when it shows one) both decide with this one type, so they
// never disagree about a name.
//
// The tables are the sources the query snapshots read (Snapshot.Source)
// and the tables their SQL names after FROM or JOIN; the columns of a
// table are the columns of every snapshot that read it and every other
// identifier its SQL names (so SUM(amount) AS gmv makes both amount and
// gmv known). SQL keywords, function names, string literals and :params
// are not names. Names compare without regard to case, as SQL does. A
// bare name in backticks may also be a text value of a snapshot (`north`).
type Names struct {
	cols   map[string]map[string]bool // lower-case table → lower-case column
	tables []string                   // as first written, sorted
	all    []string                   // every table and column, for suggestions
	extra  map[string]bool            // lower-case: other names a bare `name` may be
}

// NamesOf gathers the names of the given query snapshots (merge results,
// whose Tool is "merge", read no table and add none). extra are other
// names a bare `name` in backticks may be (metrics, inputs).
func NamesOf(snaps []*Snapshot, extra []string) *Names {
	n := &Names{cols: map[string]map[string]bool{}, extra: map[string]bool{}}
	seenAll := map[string]bool{}
	addAll := func(s string) {
		if !seenAll[strings.ToLower(s)] {
			seenAll[strings.ToLower(s)] = true
			n.all = append(n.all, s)
		}
	}
	for _, s := range snaps {
		if s == nil || s.Tool == "merge" {
			continue
		}
		for _, row := range s.Rows {
			for _, v := range row {
				if str, ok := v.(string); ok && isName(str) {
					n.extra[strings.ToLower(str)] = true
				}
			}
		}
		tables, idents := sqlNames(s.SQL)
		if s.Source != "" {
			tables = append([]string{s.Source}, tables...)
		}
		cols := append(append([]string(nil), s.Columns...), idents...)
		for _, t := range tables {
			lt := strings.ToLower(t)
			if n.cols[lt] == nil {
				n.cols[lt] = map[string]bool{}
				n.tables = append(n.tables, t)
				addAll(t)
			}
			for _, c := range cols {
				n.cols[lt][strings.ToLower(c)] = true
				addAll(c)
			}
		}
	}
	sort.Strings(n.tables)
	sort.Strings(n.all)
	for _, e := range extra {
		n.extra[strings.ToLower(e)] = true
	}
	return n
}

// Table says why name is not a table of the run's snapshots ("" when it is).
func (n *Names) Table(name string) string {
	if n.cols[strings.ToLower(name)] != nil {
		return ""
	}
	return fmt.Sprintf("no snapshot of the run queries table %q%s", name, nearest(name, n.tables))
}

// Column says why ref ("table.column") is not a column of the run's
// snapshots ("" when it is).
func (n *Names) Column(ref string) string {
	t, c, _ := strings.Cut(ref, ".")
	cols := n.cols[strings.ToLower(t)]
	if cols == nil {
		return n.Table(t)
	}
	if cols[strings.ToLower(c)] {
		return ""
	}
	known := make([]string, 0, len(cols))
	for _, x := range n.all {
		if cols[strings.ToLower(x)] {
			known = append(known, x)
		}
	}
	return fmt.Sprintf("no snapshot of table %q has a column %q%s", t, c, nearest(c, known))
}

// UnknownName is a name written in backticks that the evidence does not
// know; Start and End are byte offsets of the whole `…` span.
type UnknownName struct {
	Start, End int
	Text       string
	Reason     string
}

// Backticked checks every name written in backticks in text: `table`,
// `column`, `table.column` (letters, digits and underscores, one dot at
// most; anything else in backticks — code, an expression — is not a name
// and is left alone). A bare name is known when it is a table, a column of
// any table, or one of the extra names; table.column as by Column. Offsets
// are relative to text.
func (n *Names) Backticked(text string) []UnknownName {
	var out []UnknownName
	for i := 0; i < len(text); {
		a := strings.IndexByte(text[i:], '`')
		if a < 0 {
			break
		}
		a += i
		b := strings.IndexByte(text[a+1:], '`')
		if b < 0 {
			break
		}
		b += a + 1
		name := text[a+1 : b]
		i = b + 1
		if !isName(name) {
			continue
		}
		var why string
		if strings.Contains(name, ".") {
			why = n.Column(name)
		} else if !n.bare(name) {
			why = fmt.Sprintf("no snapshot of the run has a table or column %q, and it is no metric or input%s", name, nearest(name, n.all))
		}
		if why != "" {
			out = append(out, UnknownName{Start: a, End: b + 1, Text: text[a : b+1], Reason: why})
		}
	}
	return out
}

func (n *Names) bare(name string) bool {
	l := strings.ToLower(name)
	if n.extra[l] || n.cols[l] != nil {
		return true
	}
	for _, cols := range n.cols {
		if cols[l] {
			return true
		}
	}
	return false
}

// isName reports whether s is an identifier, or two joined by one dot.
func isName(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) > 2 {
		return false
	}
	for _, p := range parts {
		if !isIdent(p) {
			return false
		}
	}
	return true
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// nearest lists up to three known names closest to name (fewest edits,
// then alphabetical) as "; nearest: "a", "b"", or "" without candidates.
func nearest(name string, known []string) string {
	if len(known) == 0 {
		return ""
	}
	type cand struct {
		s string
		d int
	}
	l := strings.ToLower(name)
	cs := make([]cand, 0, len(known))
	for _, k := range known {
		cs = append(cs, cand{k, diag.EditDistance(l, strings.ToLower(k))})
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].s < cs[j].s
	})
	var q []string
	for i := 0; i < len(cs) && i < 3; i++ {
		q = append(q, fmt.Sprintf("%q", cs[i].s))
	}
	return "; nearest: " + strings.Join(q, ", ")
}

// sqlKeywords are the words of a query that are not names (built on
// first use).
var sqlKeywords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`select from where group by order as and or not in is null on join left right
		inner outer cross full natural using limit offset having distinct case when then else end asc desc union all
		intersect except with like glob between cast exists true false collate nulls first last over partition
		window rows range preceding following current row filter escape values recursive integer real text
		numeric blob int float double varchar date`) {
		m[w] = true
	}
	return m
})

// sqlNames reads the identifiers of a query: the tables (after FROM and
// JOIN) and every other identifier that is not a keyword, a function name
// (followed by "("), a :param or inside a string literal. Quoted
// identifiers ("x", `x`, [x]) count as written.
func sqlNames(sql string) (tables, idents []string) {
	prev := ""
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'':
			j := i + 1
			for j < len(sql) && !(sql[j] == '\'' && (j+1 >= len(sql) || sql[j+1] != '\'')) {
				if sql[j] == '\'' {
					j++
				}
				j++
			}
			i = j + 1
			prev = ""
		case c == '"' || c == '`' || c == '[':
			end := map[byte]byte{'"': '"', '`': '`', '[': ']'}[c]
			j := strings.IndexByte(sql[i+1:], end)
			if j < 0 {
				return
			}
			w := sql[i+1 : i+1+j]
			if prev == "from" || prev == "join" {
				tables = append(tables, w)
				prev = "table"
			} else {
				idents = append(idents, w)
				prev = ""
			}
			i += j + 2
		case c == ':' || c == '@' || c == '$':
			j := i + 1
			for j < len(sql) && isIdentByte(sql[j]) {
				j++
			}
			i = j
			prev = ""
		case isIdentByte(c) && !(c >= '0' && c <= '9'):
			j := i
			for j < len(sql) && isIdentByte(sql[j]) {
				j++
			}
			w := sql[i:j]
			k := j
			for k < len(sql) && (sql[k] == ' ' || sql[k] == '\t' || sql[k] == '\n' || sql[k] == '\r') {
				k++
			}
			lw := strings.ToLower(w)
			switch {
			case sqlKeywords()[lw]:
				prev = lw
			case k < len(sql) && sql[k] == '(':
				prev = ""
			case prev == "from" || prev == "join":
				tables = append(tables, w)
				prev = "table"
			default:
				idents = append(idents, w)
				prev = ""
			}
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(sql) && (isIdentByte(sql[j]) || sql[j] == '.') {
				j++
			}
			i = j
		default:
			switch {
			case c == ',' && prev == "table":
				prev = "from" // FROM a, b: the comma keeps the table list going
			case c != ' ' && c != '\t' && c != '\n' && c != '\r':
				prev = ""
			}
			i++
		}
	}
	return tables, idents
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

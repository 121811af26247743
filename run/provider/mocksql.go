package provider

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// The mock writes the SQL of a db_query call from the question with a
// small keyword heuristic, so that simple aggregate questions over one
// table get the query a careful analyst would write (and an evaluation
// suite can pass on the mock for the right reason). Anything else gets a
// look at the first rows, which is arbitrary but deterministic.
//
// The heuristic reads the table and its typed columns from the tool's
// description ("Table: stores(store TEXT, staff INTEGER, …)") and the
// question's words, lower-cased; a word and a name match when they are
// equal up to a final "s" ("stores" and "store"):
//
//   - each word names the column whose name words it matches best (most
//     matched words, then table order); a word that is the table's own
//     name refers to the table;
//   - "how many" / "number of" followed by anything but a column →
//     SELECT COUNT(*); "total"/"sum" → SUM(col), "average"/"mean" →
//     AVG(col), col being the first numeric column named after the
//     keyword (else the first named anywhere);
//   - otherwise "highest/most/largest/top/…" → ORDER BY col DESC LIMIT 1 and
//     "lowest/least/smallest/fewest/…" → ASC, col chosen the same way; the
//     columns selected are those the question asks for (named right after
//     which/what/whose/how many/how much), else the other columns it names,
//     else col itself;
//   - otherwise, the named columns (all of them if none), LIMIT 5;
//   - a quoted phrase, or a capitalised word that is not the first word
//     and names nothing, is a value looked for in the table's text
//     columns: WHERE lower(:v1) IN (lower(c1), lower(c2), …), the value
//     passed as a parameter.
//
// A question with none of these — or a tool whose description lists no
// table — gets SELECT * FROM <source> LIMIT 5, as does every call in code
// mode.

// dbTable is one table a db_query tool's description lists.
type dbTable struct {
	name string
	cols []dbColumn
}

type dbColumn struct {
	name    string
	numeric bool
}

// tableDecl matches one "name(col TYPE, …)" of a description's table list.
var tableDecl = lazyre.New(`^([^\s;(),]+)\(([^()]*)\)`)

// describedTables parses the table list of a db_query tool description
// (as run/sources writes it). A description in another form gives none.
func describedTables(desc string) []dbTable {
	i := strings.Index(desc, "Table: ")
	if j := strings.Index(desc, "Tables: "); j >= 0 && (i < 0 || j < i) {
		i = j + len("Tables: ")
	} else if i >= 0 {
		i += len("Table: ")
	} else {
		return nil
	}
	rest := desc[i:]
	var out []dbTable
	for {
		m := tableDecl.FindStringSubmatch(rest)
		if m == nil {
			break
		}
		t := dbTable{name: m[1]}
		for _, c := range strings.Split(m[2], ", ") {
			f := strings.Fields(c)
			if len(f) == 0 {
				continue
			}
			if f[len(f)-1] == "masked" {
				f = f[:len(f)-1]
			}
			if len(f) == 0 { // a column named "masked" with no type, or a bare marker
				continue
			}
			name, typ := f[0], ""
			if len(f) >= 2 {
				name, typ = strings.Join(f[:len(f)-1], " "), strings.ToUpper(f[len(f)-1])
			}
			t.cols = append(t.cols, dbColumn{name: name, numeric: numericType(typ)})
		}
		out = append(out, t)
		rest = rest[len(m[0]):]
		if !strings.HasPrefix(rest, "; ") {
			break
		}
		rest = rest[2:]
	}
	return out
}

// numericType follows SQLite's type affinity: INT, REAL, FLOA, DOUB, NUM
// and DEC are numbers.
func numericType(t string) bool {
	for _, k := range []string{"INT", "REAL", "FLOA", "DOUB", "NUM", "DEC"} {
		if strings.Contains(t, k) {
			return true
		}
	}
	return false
}

// Keyword lists of the heuristic (see the comment at the top).
var (
	descWords   = wordSet("highest most largest top biggest greatest maximum max best")
	ascWords    = wordSet("lowest least smallest fewest minimum min bottom worst")
	sumWords    = wordSet("total sum")
	avgWords    = wordSet("average mean")
	askWords    = wordSet("which what whose")
	skipWords   = wordSet("is was are were the a an its their")
	quotedValue = lazyre.New(`"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?:^|\s)'([^']+)'`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// sameWord matches a question word and a name word up to a final "s".
func sameWord(w, n string) bool {
	if w == n {
		return true
	}
	trim := func(s string) string {
		if len(s) > 3 {
			return strings.TrimSuffix(s, "s")
		}
		return s
	}
	return trim(w) == trim(n)
}

// heuristicQuery is the SQL (and its parameters) the mock writes for
// question over the tables of a db_query tool; ok is false when the
// heuristic does not apply and the caller samples the table instead.
func heuristicQuery(tables []dbTable, question string) (sqlText string, params map[string]any, ok bool) {
	if len(tables) == 0 {
		return "", nil, false
	}
	words := splitWords(question)
	t := tables[0]
	if len(tables) > 1 {
		best := 0
		for _, cand := range tables {
			if s := namedScore(cand, words); s > best {
				t, best = cand, s
			}
		}
	}
	owner := assignWords(t, words)
	named := func(from int) int { // first column named at or after from, numeric only
		for i := max(from, 0); i < len(words); i++ {
			if c := owner[i]; c >= 0 && t.cols[c].numeric {
				return c
			}
		}
		return -1
	}
	numericAfter := func(pos int) int {
		if c := named(pos + 1); c >= 0 {
			return c
		}
		return named(0)
	}
	from := " FROM " + ident(t.name)
	where, params := filters(t, question, words, owner)
	from += where

	// how many / number of, followed by something that is not a column.
	for i := 0; i+1 < len(words); i++ {
		if (words[i] == "how" && words[i+1] == "many") || (words[i] == "number" && words[i+1] == "of") {
			if i+2 < len(words) && owner[i+2] >= 0 {
				continue // "how many staff": the staff column is asked for
			}
			return "SELECT COUNT(*) AS " + alias("number_of", t.name) + from, params, true
		}
	}
	for i, w := range words {
		var fn, prefix string
		switch {
		case sumWords[w]:
			fn, prefix = "SUM", "total"
		case avgWords[w]:
			fn, prefix = "AVG", "average"
		default:
			continue
		}
		c := numericAfter(i)
		if c < 0 {
			continue
		}
		col := t.cols[c].name
		return "SELECT " + fn + "(" + ident(col) + ") AS " + alias(prefix, col) + from, params, true
	}
	asked := askedColumns(t, words, owner)
	for i, w := range words {
		dir := ""
		switch {
		case descWords[w]:
			dir = "DESC"
		case ascWords[w]:
			dir = "ASC"
		default:
			continue
		}
		c := numericAfter(i)
		if c < 0 {
			continue
		}
		sel := asked
		if len(sel) == 0 {
			sel = namedColumns(owner, c)
		}
		if len(sel) == 0 {
			sel = []int{c}
		}
		return "SELECT " + columnList(t, sel) + from + " ORDER BY " + ident(t.cols[c].name) + " " + dir + " LIMIT 1", params, true
	}
	sel := asked
	if len(sel) == 0 {
		sel = namedColumns(owner, -1)
	}
	if len(sel) == 0 && where == "" {
		return "", nil, false
	}
	list := "*"
	if len(sel) > 0 {
		list = columnList(t, sel)
	}
	return "SELECT " + list + from + " LIMIT 5", params, true
}

// namedScore counts the question words that match a name word of t or of
// its columns, for choosing among several tables.
func namedScore(t dbTable, words []string) int {
	n := 0
	for _, w := range words {
		for _, nw := range append(splitWords(t.name), columnWords(t)...) {
			if sameWord(w, nw) {
				n++
				break
			}
		}
	}
	return n
}

func columnWords(t dbTable) []string {
	var out []string
	for _, c := range t.cols {
		out = append(out, splitWords(c.name)...)
	}
	return out
}

// assignWords gives, for each question word, the column it names (-1:
// none): the column with the most name words in the question among those
// the word matches, the earlier in the table on a tie. The table's own
// name names the table, not a column.
func assignWords(t dbTable, words []string) []int {
	score := make([]int, len(t.cols))
	for c, col := range t.cols {
		for _, nw := range splitWords(col.name) {
			for _, w := range words {
				if sameWord(w, nw) {
					score[c]++
					break
				}
			}
		}
	}
	owner := make([]int, len(words))
	for i, w := range words {
		owner[i] = -1
		if strings.EqualFold(w, t.name) {
			continue
		}
		for c, col := range t.cols {
			for _, nw := range splitWords(col.name) {
				if sameWord(w, nw) && (owner[i] < 0 || score[c] > score[owner[i]]) {
					owner[i] = c
				}
			}
		}
	}
	return owner
}

// askedColumns lists the columns named right after an interrogative
// (which, what, whose, how many, how much), skipping articles and forms of
// "to be", in question order.
func askedColumns(t dbTable, words []string, owner []int) []int {
	var out []int
	for i := 0; i < len(words); i++ {
		j := -1
		switch {
		case askWords[words[i]]:
			j = i + 1
		case words[i] == "how" && i+1 < len(words) && (words[i+1] == "many" || words[i+1] == "much"):
			j = i + 2
		}
		if j < 0 {
			continue
		}
		for j < len(words) && skipWords[words[j]] {
			j++
		}
		if j < len(words) && owner[j] >= 0 && !containsInt(out, owner[j]) {
			out = append(out, owner[j])
		}
	}
	return out
}

// namedColumns lists the columns the question names, in order, without
// except.
func namedColumns(owner []int, except int) []int {
	var out []int
	for _, c := range owner {
		if c >= 0 && c != except && !containsInt(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// filters turns quoted phrases and capitalised words that name nothing
// into a WHERE clause over the table's text columns, with parameters.
func filters(t dbTable, question string, words []string, owner []int) (string, map[string]any) {
	var text []string
	for _, c := range t.cols {
		if !c.numeric {
			text = append(text, "lower("+ident(c.name)+")")
		}
	}
	if len(text) == 0 {
		return "", nil
	}
	var values []string
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if v != "" && !seen[strings.ToLower(v)] {
			seen[strings.ToLower(v)] = true
			values = append(values, v)
		}
	}
	for _, m := range quotedValue.FindAllStringSubmatch(question, -1) {
		for _, g := range m[1:] {
			add(g)
		}
	}
	unquoted := quotedValue.ReplaceAllString(question, " ")
	named := map[string]bool{}
	for i, w := range words {
		if owner[i] >= 0 || strings.EqualFold(w, t.name) {
			named[w] = true
		}
	}
	for i, w := range strings.FieldsFunc(unquoted, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) {
		w = strings.Trim(w, "-")
		rs := []rune(w)
		if i == 0 || len(rs) < 2 || !unicode.IsUpper(rs[0]) {
			continue
		}
		lw := strings.ToLower(w)
		if named[lw] || stopwords()[lw] || descWords[lw] || ascWords[lw] || sumWords[lw] || avgWords[lw] {
			continue
		}
		add(w)
	}
	if len(values) == 0 {
		return "", nil
	}
	params := map[string]any{}
	var conds []string
	for i, v := range values {
		name := "v" + strconv.Itoa(i+1)
		params[name] = v
		conds = append(conds, "lower(:"+name+") IN ("+strings.Join(text, ", ")+")")
	}
	return " WHERE " + strings.Join(conds, " AND "), params
}

func columnList(t dbTable, cols []int) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = ident(t.cols[c].name)
	}
	return strings.Join(parts, ", ")
}

// ident quotes a name that is not a plain SQL identifier.
func ident(s string) string {
	if plainIdent.MatchString(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// alias names an aggregate's result column (prefix_col), so that it can
// be cited as Q1.r0.<alias>; a name that would not be a plain identifier
// gives the prefix alone.
func alias(prefix, col string) string {
	if a := prefix + "_" + col; plainIdent.MatchString(a) {
		return a
	}
	return prefix
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

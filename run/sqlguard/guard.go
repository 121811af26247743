// Package sqlguard decides whether a SQL text may be run against a data
// source. Only one read statement is allowed: SELECT, WITH … SELECT or
// VALUES. The decision is made on SQLite's own tokens, so keywords inside
// string literals, quoted identifiers and comments never cause a refusal,
// while a write hidden behind a CTE, a comment or a second statement
// always does. The guard is the first of two walls: sources also run every
// query on a read-only connection, so a statement the guard wrongly let
// through still cannot change anything.
//
// Where it fits: docs/architecture.md#running.
package sqlguard

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Verdict is the guard's answer. OK is true and Code empty when the
// statement may run; otherwise Code is one of the E-SQL-… codes, Reason a
// sentence naming the offending token, and Line/Col (1-based, in runes)
// point at it inside the SQL text.
type Verdict struct {
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	Code   string `json:"code,omitempty"`
	Fix    string `json:"fix,omitempty"`
	Offset int    `json:"offset"`
	Line   int    `json:"line"`
	Col    int    `json:"col"`
}

// Shape is what sources need to know about an accepted statement: the
// named parameters it binds and the structure that masking relies on.
type Shape struct {
	// Params are the names of the :name parameters, without the colon, in
	// order of first appearance.
	Params []string
	// Flat is true for a single SELECT with no WITH, no subquery, no
	// compound operator and no VALUES; only then are Items filled in.
	Flat bool
	// Compound is true when UNION, INTERSECT or EXCEPT appears anywhere.
	Compound bool
	// Items describes the result columns of a flat SELECT, in order.
	Items []Item
	// Clock is true when a date and time function is called; a parameter
	// value of 'now', 'localtime' or 'utc' would then make the result
	// depend on the clock or the machine's time zone (see ClockWord).
	Clock bool
	// ReadsTable is true when a FROM appears anywhere: a statement
	// without one (SELECT 17919, VALUES (1)) computes nothing from the data.
	ReadsTable bool
}

// ClockWord reports whether s, given to a date and time function, makes
// its result depend on the clock ('now') or on the machine's time zone
// ('localtime', 'utc').
func ClockWord(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "now", "localtime", "utc":
		return true
	}
	return false
}

// Item is one entry of a flat SELECT's result list.
type Item struct {
	// Star is true for * and table.*, which expand to several columns.
	Star bool
	// Alias is the name the item is given with AS (or the trailing bare
	// identifier that SQLite reads as an alias); it may be a false
	// positive, never a miss.
	Alias string
	// Names are every identifier the item mentions, lower-cased and
	// unquoted (function names included): a superset of the columns it reads.
	Names []string
}

// Check decides whether sql may run.
func Check(sql string) Verdict {
	v, _ := Inspect(sql)
	return v
}

// starts are the statements a source accepts.
var starts = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true}

// writeWords may not appear as bare keywords anywhere in an accepted
// statement: each one only occurs in SQLite's grammar as part of a
// statement that writes data, changes the schema, opens or ends a
// transaction, or reaches another database file. A column that happens to
// carry one of these names can still be read by quoting it ("release").
var writeWords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "INTO": true, "UPSERT": true,
	"CREATE": true, "DROP": true, "ALTER": true, "REINDEX": true, "ANALYZE": true,
	"ATTACH": true, "DETACH": true, "VACUUM": true, "PRAGMA": true,
	"BEGIN": true, "COMMIT": true, "ROLLBACK": true, "SAVEPOINT": true, "RELEASE": true,
	"RETURNING": true, "TRIGGER": true,
}

// deniedFuncs reach outside the database or the process's control.
var deniedFuncs = map[string]string{
	"LOAD_EXTENSION": "loads native code into the process",
	"FTS3_TOKENIZER": "can register native code pointers",
	"READFILE":       "reads host files",
	"WRITEFILE":      "writes host files",
	"EDIT":           "starts an editor",
}

// nondetFuncs return a different value on every run, which would break the
// rule that the same plan, inputs and data give the same snapshots.
var nondetFuncs = map[string]bool{
	"RANDOM": true, "RANDOMBLOB": true, "CHANGES": true, "TOTAL_CHANGES": true, "LAST_INSERT_ROWID": true,
}

// nondetWords are keywords whose value is the current clock.
var nondetWords = map[string]bool{"CURRENT_DATE": true, "CURRENT_TIME": true, "CURRENT_TIMESTAMP": true}

// dateFuncs read the clock when called with no arguments or with 'now'.
var dateFuncs = map[string]bool{
	"DATE": true, "TIME": true, "DATETIME": true, "JULIANDAY": true, "UNIXEPOCH": true, "STRFTIME": true, "TIMEDIFF": true,
}

// Inspect checks sql and, when it is accepted, describes its shape.
func Inspect(sql string) (Verdict, Shape) {
	var shape Shape
	if len(sql) > MaxLen {
		return refuse(sql, 0, CodeSize, fmt.Sprintf("the statement is %d bytes long; at most %d are accepted", len(sql), MaxLen),
			"aggregate in SQL instead of listing values inline"), shape
	}
	if !utf8.ValidString(sql) || strings.IndexByte(sql, 0) >= 0 {
		off := invalidOffset(sql)
		return refuse(sql, off, CodeSyntax, "the statement contains a NUL byte or bytes that are not UTF-8",
			"remove the control or non-UTF-8 characters"), shape
	}
	toks, lerr := lex(sql)
	if lerr != nil {
		return refuse(sql, lerr.Off, CodeSyntax, lerr.Msg, "close the literal, identifier or comment, or remove the character"), shape
	}
	if len(toks) == 0 {
		return refuse(sql, 0, CodeEmpty, "there is no statement", "write one SELECT statement"), shape
	}
	// One statement: trailing semicolons are fine, anything after one is not.
	for i, t := range toks {
		if t.Kind == tOp && t.Text == ";" {
			for _, u := range toks[i+1:] {
				if !(u.Kind == tOp && u.Text == ";") {
					return refuse(sql, u.Off, CodeMulti, fmt.Sprintf("a second statement starts at %q after ';'", u.Text),
						"send one statement per query; combine results with WITH, JOIN or UNION ALL"), shape
				}
			}
			toks = toks[:i]
			break
		}
	}
	if len(toks) == 0 {
		return refuse(sql, 0, CodeEmpty, "there is no statement before ';'", "write one SELECT statement"), shape
	}
	first := toks[0]
	if first.Kind != tWord || !starts[first.Value] {
		reason := fmt.Sprintf("%q statements are not allowed; only SELECT, WITH … SELECT and VALUES are", first.Text)
		if first.Kind == tWord && first.Value == "EXPLAIN" {
			reason = "EXPLAIN is not allowed: a query plan is not data and differs between SQLite versions"
		}
		return refuse(sql, first.Off, CodeStatement, reason, "rewrite it as a single SELECT; sources are read-only"), shape
	}

	// Function-call tracking: a stack of the callee names of the open
	// parentheses ("" for a parenthesis that is not a call).
	var calls []string
	seen := map[string]bool{}
	selects := 0
	for i, t := range toks {
		next := token{}
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		isCall := next.Kind == tOp && next.Text == "("
		switch t.Kind {
		case tWord:
			w := t.Value
			switch {
			case w == "REPLACE" && isCall:
				// replace(x, y, z) is a string function; REPLACE INTO is a write.
			case w == "REPLACE" || writeWords[w]:
				return refuse(sql, t.Off, CodeWrite, fmt.Sprintf("%s is not allowed in a read-only query", w),
					fmt.Sprintf("remove the %s; if it is a column name, quote it as \"%s\"", w, t.Text)), shape
			case nondetWords[w]:
				return refuse(sql, t.Off, CodeNondet, fmt.Sprintf("%s reads the clock, so the result would change between runs", w),
					"pass the date as a flow input and bind it as a :name parameter"), shape
			case isCall && deniedFuncs[w] != "":
				return refuse(sql, t.Off, CodeFunc, fmt.Sprintf("%s() is not allowed: it %s", strings.ToLower(w), deniedFuncs[w]),
					"remove the call"), shape
			case isCall && nondetFuncs[w]:
				return refuse(sql, t.Off, CodeNondet, fmt.Sprintf("%s() returns a different value on every run", strings.ToLower(w)),
					"remove the call; for a sample use ORDER BY a column with LIMIT"), shape
			case isCall && dateFuncs[w] && i+2 < len(toks) && toks[i+2].Kind == tOp && toks[i+2].Text == ")":
				return refuse(sql, t.Off, CodeNondet, fmt.Sprintf("%s() without arguments reads the clock", strings.ToLower(w)),
					"pass the date as a flow input and bind it as a :name parameter"), shape
			case w == "SELECT":
				selects++
			case isCall && dateFuncs[w]:
				shape.Clock = true
			case w == "UNION" || w == "INTERSECT" || w == "EXCEPT":
				shape.Compound = true
			}
			seen[w] = true
		case tString:
			if ClockWord(t.Value) {
				for _, f := range calls {
					if dateFuncs[f] {
						return refuse(sql, t.Off, CodeNondet, fmt.Sprintf("'%s' makes the result depend on the clock or the machine's time zone", strings.TrimSpace(t.Value)),
							"pass the date as a flow input and bind it as a :name parameter; keep times in UTC"), shape
					}
				}
			}
		case tParam:
			if !strings.HasPrefix(t.Text, ":") {
				return refuse(sql, t.Off, CodeParam, fmt.Sprintf("parameter %s is not a named :name parameter", t.Text),
					"write :name in the SQL and give its value in params"), shape
			}
			if !containsStr(shape.Params, t.Value) {
				shape.Params = append(shape.Params, t.Value)
			}
		case tOp:
			switch t.Text {
			case "(":
				name := ""
				if i > 0 && toks[i-1].Kind == tWord {
					name = toks[i-1].Value
				}
				calls = append(calls, name)
			case ")":
				if len(calls) > 0 {
					calls = calls[:len(calls)-1]
				}
			}
		}
	}
	shape.ReadsTable = seen["FROM"]
	shape.Flat = selects == 1 && first.Value == "SELECT" && !shape.Compound && !seen["VALUES"] && !seen["WITH"]
	if shape.Flat && fromCallsFunction(toks) {
		// A table-valued function such as json_each(customer) turns a
		// column's values into rows of another "table"; treat it like a subquery.
		shape.Flat = false
	}
	if shape.Flat {
		shape.Items = selectItems(toks)
	}
	return Verdict{OK: true}, shape
}

// clauseEnd are the keywords that end a SELECT's result list when they
// appear outside parentheses.
var clauseEnd = map[string]bool{
	"FROM": true, "WHERE": true, "GROUP": true, "HAVING": true, "WINDOW": true, "ORDER": true, "LIMIT": true,
}

// notCallers are keywords that may precede "(" in a FROM clause without
// being a function call.
var notCallers = map[string]bool{"ON": true, "USING": true, "AND": true, "OR": true, "NOT": true, "IN": true, "EXISTS": true, "IS": true}

// fromCallsFunction reports whether the top-level FROM clause calls a
// function (a table-valued function, or a function in a join condition).
func fromCallsFunction(toks []token) bool {
	depth := 0
	in := false
	for i, t := range toks {
		if t.Kind == tOp && t.Text == "(" {
			if in && i > 0 && toks[i-1].Kind == tWord && !notCallers[toks[i-1].Value] {
				return true
			}
			depth++
		}
		if t.Kind == tOp && t.Text == ")" {
			depth--
		}
		if depth == 0 && t.Kind == tWord {
			switch {
			case t.Value == "FROM":
				in = true
			case clauseEnd[t.Value]:
				in = false
			}
		}
	}
	return false
}

// selectItems splits the result list of a flat SELECT at top-level commas.
func selectItems(toks []token) []Item {
	i := 1 // past SELECT
	if i < len(toks) && toks[i].Kind == tWord && (toks[i].Value == "DISTINCT" || toks[i].Value == "ALL") {
		i++
	}
	var items []Item
	var cur []token
	depth := 0
	flush := func() {
		if len(cur) > 0 {
			items = append(items, describe(cur))
		}
		cur = nil
	}
	for ; i < len(toks); i++ {
		t := toks[i]
		if depth == 0 && t.Kind == tWord && clauseEnd[t.Value] {
			break
		}
		if t.Kind == tOp {
			switch t.Text {
			case "(":
				depth++
			case ")":
				depth--
			case ",":
				if depth == 0 {
					flush()
					continue
				}
			}
		}
		cur = append(cur, t)
	}
	flush()
	return items
}

func describe(ts []token) Item {
	var it Item
	last := len(ts) - 1
	if ts[last].Kind == tOp && ts[last].Text == "*" && (len(ts) == 1 || (len(ts) == 3 && ts[1].Text == ".")) {
		it.Star = true
	}
	for _, t := range ts {
		if t.Kind == tWord || t.Kind == tQIdent {
			it.Names = append(it.Names, strings.ToLower(t.Value))
		}
	}
	if len(ts) >= 2 && (ts[last].Kind == tWord || ts[last].Kind == tQIdent || ts[last].Kind == tString) {
		prev := ts[last-1]
		if (prev.Kind == tWord && prev.Value == "AS") || prev.Kind != tOp || prev.Text == ")" {
			it.Alias = strings.ToLower(ts[last].Value)
		}
	}
	return it
}

func refuse(sql string, off int, code, reason, fix string) Verdict {
	line, col := position(sql, off)
	return Verdict{Code: code, Reason: reason, Fix: fix, Offset: off, Line: line, Col: col}
}

// position turns a byte offset into a 1-based line and rune column.
func position(s string, off int) (int, int) {
	if off > len(s) {
		off = len(s)
	}
	line, col := 1, 1
	for _, r := range s[:off] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func invalidOffset(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0 || (r == utf8.RuneError && size <= 1) {
			return i
		}
		i += size
	}
	return 0
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

package sources

import (
	"fmt"
	"time"

	"github.com/agentlab/agentlab/diag"
)

// Load diagnostic codes (reported with the data file, line and column).
//
//	code              meaning
//	E-SRC-KIND        the source kind is not csv or sqlite
//	E-SRC-OPEN        the file cannot be read
//	E-SRC-NAME        the source key cannot name a table (empty, or starts with sqlite_)
//	E-SRC-SQLITE      a kind: sqlite file is not a readable SQLite database
//	E-SRC-WAL         a kind: sqlite file has uncommitted changes in its -wal file
//	E-SRC-TABLE       table: names a table the database does not have, or it has none
//	E-SRC-MASK        mask_columns names a column the source does not have
//	E-CSV-ENCODING    the CSV file is not UTF-8
//	E-CSV-EMPTY       the CSV file has no header line
//	E-CSV-HEADER      a header name is empty, or the first line looks like data
//	E-CSV-DUPCOL      two header names are the same (compared case-insensitively, as SQLite does)
//	E-CSV-QUOTE       a quoted field is malformed (bare or unclosed ")
//	E-CSV-RAGGED      a data row has more or fewer fields than the header
//	E-SRC-TOO-LARGE   the data file is over the source cap (fsutil.SourceCap)
const (
	CodeKind     = "E-SRC-KIND"
	CodeOpen     = "E-SRC-OPEN"
	CodeName     = "E-SRC-NAME"
	CodeSQLite   = "E-SRC-SQLITE"
	CodeWAL      = "E-SRC-WAL"
	CodeTable    = "E-SRC-TABLE"
	CodeMask     = "E-SRC-MASK"
	CodeEncoding = "E-CSV-ENCODING"
	CodeEmpty    = "E-CSV-EMPTY"
	CodeHeader   = "E-CSV-HEADER"
	CodeDupCol   = "E-CSV-DUPCOL"
	CodeQuote    = "E-CSV-QUOTE"
	CodeRagged   = "E-CSV-RAGGED"
	CodeTooBig   = "E-SRC-TOO-LARGE"
)

// Query error codes, in addition to the guard's E-SQL-… codes (package sqlguard).
//
//	code                 meaning
//	E-SQL-SOURCE         the query names a source that is not declared
//	E-SQL-ARGS           the tool arguments are not {sql: string, params: object}
//	E-SQL-PARAM-MISSING  the SQL uses :name but params has no value for it
//	E-SQL-PARAM-UNUSED   params has a value the SQL never uses (usually a typo)
//	E-SQL-PARAM-TYPE     a parameter value is an object or a list
//	E-SQL-EXEC           SQLite refused or failed the statement (no such column, …)
//	E-SQL-TIMEOUT        the query ran past its deadline (QueryTimeout, or the node's, whichever comes first)
//	E-SQL-RESULT         the result cannot be stored as a snapshot (duplicate column names, infinity)
//	E-SQL-TOO-LARGE      a value or the whole result is over MaxResultBytes
const (
	CodeSource       = "E-SQL-SOURCE"
	CodeArgs         = "E-SQL-ARGS"
	CodeParamMissing = "E-SQL-PARAM-MISSING"
	CodeParamUnused  = "E-SQL-PARAM-UNUSED"
	CodeParamType    = "E-SQL-PARAM-TYPE"
	CodeExec         = "E-SQL-EXEC"
	CodeTimeout      = "E-SQL-TIMEOUT"
	CodeResult       = "E-SQL-RESULT"
	CodeTooLarge     = "E-SQL-TOO-LARGE"
)

// QueryTimeout bounds every query, whatever deadline the node or the run
// has (the earlier one wins): a runaway query must not hold the source for
// the ten minutes a run may take.
var QueryTimeout = 30 * time.Second

// MaxResultBytes bounds what a query may produce: any one value (SQLite
// refuses to build a longer string or blob, so a printf('%.*c', 2e8, 'x')
// fails inside SQLite instead of allocating gigabytes) and the text of all
// the rows kept. Rows past the row cap are not counted: they are never read.
var MaxResultBytes int64 = 64 << 20

// DeclaredField says which field of a flow's `sources:` entry a load
// diagnostic with code is about, when the fix is to change the flow rather
// than the data file: "path" (E-SRC-OPEN), "kind", "table", "mask_columns",
// or "" for the entry's key itself (E-SRC-NAME). ok is false for problems
// inside the data file (E-CSV-…, E-SRC-SQLITE, E-SRC-WAL). The sources
// package knows no flow positions; the runner, which has the flow file,
// uses this to point at the entry.
func DeclaredField(code string) (field string, ok bool) {
	switch code {
	case CodeOpen:
		return "path", true
	case CodeKind:
		return "kind", true
	case CodeTable:
		return "table", true
	case CodeMask:
		return "mask_columns", true
	case CodeName:
		return "", true
	}
	return "", false
}

// LoadError carries every problem found while loading the sources, one
// diagnostic each, so that a user fixes them all in one pass.
type LoadError struct {
	Diagnostics diag.List
}

func (e *LoadError) Error() string { return e.Diagnostics.Summary() }

// QueryError is a refused or failed query. It is what a db_query tool
// returns to the model, so Reason and Fix are written for whoever wrote
// the SQL. Line and Col point into the SQL text when known (else 0).
type QueryError struct {
	Source string
	Code   string
	Reason string
	Fix    string
	Line   int
	Col    int
}

func (e *QueryError) Error() string {
	pos := ""
	if e.Line > 0 {
		pos = fmt.Sprintf(" at %d:%d", e.Line, e.Col)
	}
	s := fmt.Sprintf("db_query__%s: %s%s: %s", e.Source, e.Code, pos, e.Reason)
	if e.Fix != "" {
		s += " (fix: " + e.Fix + ")"
	}
	return s
}

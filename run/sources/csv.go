package sources

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/diag"
)

// csvTable is a parsed CSV file: column names, the inferred type of each
// column and typed values (int64, float64, string or nil for NULL).
type csvTable struct {
	Columns []string
	Types   []string
	Rows    [][]any
}

// parseCSV reads a comma-separated UTF-8 file with a header line and
// infers a type per column:
//
//   - INTEGER when every non-empty cell is a base-10 integer that fits
//     int64 and has no leading zero (so "007" stays text: it is a code);
//   - REAL when every non-empty cell is a decimal number (digits, one
//     point, optional exponent; no hex, no Inf/NaN, no thousands separators);
//   - TEXT otherwise, and for a column with no non-empty cell at all.
//
// A cell that is empty or only whitespace is NULL. Numbers may be padded
// with spaces; text keeps its exact bytes. A UTF-8 byte-order mark is
// skipped. It is a pure function of its input so that it can be fuzzed.
func parseCSV(file string, data []byte) (*csvTable, *diag.Diagnostic) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := lineStarts(data)
	errAt := func(line, byteCol int, code, fix, format string, args ...any) *diag.Diagnostic {
		return &diag.Diagnostic{File: file, Line: line, Col: runeCol(data, lines, line, byteCol), Severity: diag.Error,
			Code: code, Message: fmt.Sprintf(format, args...), Fix: fix}
	}
	if off := firstInvalidUTF8(data); off >= 0 {
		line, col := offsetPos(lines, off)
		return nil, errAt(line, col, CodeEncoding,
			"re-save the file as UTF-8 (for example: iconv -f GBK -t UTF-8 in.csv > out.csv)",
			"byte 0x%02x at offset %d is not UTF-8 (or the file contains a NUL byte)", data[off], off)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // ragged rows are reported here, with the missing column's name
	header, err := r.Read()
	if err == io.EOF {
		return nil, &diag.Diagnostic{File: file, Line: 1, Col: 1, Severity: diag.Error, Code: CodeEmpty,
			Message: "the file is empty; the first line must name the columns", Fix: "add a header line such as: region,week,amount"}
	}
	if err != nil {
		return nil, csvErr(file, data, lines, err)
	}
	t := &csvTable{}
	seen := map[string]int{}
	numeric := 0
	for i, h := range header {
		name := strings.TrimSpace(h)
		line, col := r.FieldPos(i)
		if name == "" {
			return nil, errAt(line, col, CodeHeader, "give every column a name in the first line",
				"column %d of the header has no name", i+1)
		}
		if j, dup := seen[strings.ToLower(name)]; dup {
			return nil, errAt(line, col, CodeDupCol, "rename one of the two columns",
				"column %d %q has the same name as column %d %q (SQLite compares names without case)", i+1, name, j+1, t.Columns[j])
		}
		if _, ok := numberKind(name); ok {
			numeric++
		}
		seen[strings.ToLower(name)] = i
		t.Columns = append(t.Columns, name)
	}
	if numeric == len(header) {
		return nil, errAt(1, 1, CodeHeader, "add a header line naming the columns; a column named like a number needs a letter (y2024)",
			"the first line %q looks like data, not column names", strings.Join(header, ","))
	}
	var raw [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(file, data, lines, err)
		}
		if len(rec) != len(header) {
			row := len(raw) + 1
			if len(rec) > len(header) {
				line, col := r.FieldPos(len(header))
				return nil, errAt(line, col, CodeRagged, "remove the extra field, or quote a value that contains a comma",
					"data row %d has %d fields but the header names %d; field %d has no column", row, len(rec), len(header), len(header)+1)
			}
			line, col := r.FieldPos(len(rec) - 1)
			return nil, errAt(line, col+len(rec[len(rec)-1]), CodeRagged, "add the missing fields (an empty field is NULL): every row needs one field per column",
				"data row %d has %d fields but the header names %d; there is no value for column %q", row, len(rec), len(header), t.Columns[len(rec)])
		}
		raw = append(raw, append([]string(nil), rec...))
	}
	t.Types = make([]string, len(header))
	for j := range header {
		t.Types[j] = inferType(raw, j)
	}
	t.Rows = make([][]any, len(raw))
	for i, rec := range raw {
		row := make([]any, len(rec))
		for j, cell := range rec {
			row[j] = typed(cell, t.Types[j])
		}
		t.Rows[i] = row
	}
	return t, nil
}

// inferType applies the column rule to column j.
func inferType(rows [][]string, j int) string {
	kind := "" // widest kind seen so far: "", INTEGER, REAL
	for _, r := range rows {
		c := strings.TrimSpace(r[j])
		if c == "" {
			continue
		}
		k, ok := numberKind(c)
		if !ok {
			return "TEXT"
		}
		if k == "REAL" || kind == "" {
			kind = k
		}
	}
	if kind == "" {
		return "TEXT"
	}
	return kind
}

// numberKind says whether s (already trimmed) is an INTEGER or a REAL by
// the rule above.
func numberKind(s string) (string, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := i - intStart
	if intDigits > 1 && s[intStart] == '0' {
		return "", false // leading zero: an identifier such as a postcode
	}
	frac := false
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		frac = true
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return "", false
	}
	exp := false
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		exp = true
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return "", false
		}
	}
	if i != len(s) {
		return "", false
	}
	if !frac && !exp {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return "INTEGER", true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", false
	}
	return "REAL", true
}

// typed converts one cell to the value stored for its column type.
func typed(cell, typ string) any {
	c := strings.TrimSpace(cell)
	if c == "" {
		return nil
	}
	switch typ {
	case "INTEGER":
		i, _ := strconv.ParseInt(c, 10, 64)
		return i
	case "REAL":
		f, _ := strconv.ParseFloat(c, 64)
		return f
	}
	return cell
}

// csvErr turns an encoding/csv parse error into a diagnostic.
func csvErr(file string, data []byte, lines []int, err error) *diag.Diagnostic {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return &diag.Diagnostic{File: file, Line: 1, Col: 1, Severity: diag.Error, Code: CodeQuote, Message: err.Error(),
			Fix: "check the file is comma-separated text"}
	}
	msg := "a quote \" appears inside an unquoted field"
	if errors.Is(pe.Err, csv.ErrQuote) {
		msg = "a quoted field is not closed, or a quote inside it is not doubled"
	}
	return &diag.Diagnostic{File: file, Line: pe.Line, Col: runeCol(data, lines, pe.Line, pe.Column), Severity: diag.Error,
		Code: CodeQuote, Message: msg + fmt.Sprintf(" (record starting on line %d)", pe.StartLine),
		Fix: "put fields that contain quotes or commas in double quotes and write each inner quote twice (\"\")"}
}

// lineStarts returns the byte offset at which every line begins.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offsetPos converts a byte offset to a 1-based line and 1-based byte column.
func offsetPos(starts []int, off int) (int, int) {
	line := 1
	for line < len(starts) && starts[line] <= off {
		line++
	}
	return line, off - starts[line-1] + 1
}

// runeCol converts a 1-based byte column on a line into a 1-based rune
// column, which is what editors show.
func runeCol(data []byte, starts []int, line, byteCol int) int {
	if line < 1 || line > len(starts) || byteCol < 1 {
		return 1
	}
	s := starts[line-1]
	e := s + byteCol - 1
	if e > len(data) {
		e = len(data)
	}
	return utf8.RuneCount(data[s:e]) + 1
}

// firstInvalidUTF8 returns the offset of the first byte that is not valid
// UTF-8, or of the first NUL byte (SQLite text cannot hold it faithfully), or -1.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		if data[i] == 0 {
			return i
		}
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

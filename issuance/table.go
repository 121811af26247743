package issuance

import "strings"

// Numbers in the cells of a Markdown table are read as quantities, with
// two exceptions that are the table's structure: a row number in a column
// headed #, No., 序号 (an enumerator) or Rank, 排名 (an ordinal), and a
// header cell that is a bare integer — a year ("| Region | 2025 | 2026 |")
// is a date, one no larger than the number of columns ("| 1 | 2 | 3 |")
// numbers the columns, and any other is a figure.

// table is what the scanner knows about the table the current line
// belongs to.
type table struct {
	on bool // the header row has been seen
	// index and rank have a bit per column (the first 64) whose header
	// names a row number or a rank.
	index, rank uint64
	// cells are the bare-integer cells of the current row to ignore, in
	// order; next is the first not yet passed.
	cells []cellSpan
	next  int
}

type cellSpan struct {
	start, end int
	why        string
}

// indexHeaders and rankHeaders are the column names (lower case, without
// emphasis) whose cells number the rows.
var (
	indexHeaders = map[string]bool{"#": true, "no": true, "no.": true, "nr": true, "nr.": true, "num": true,
		"idx": true, "index": true, "序号": true, "编号": true}
	rankHeaders = map[string]bool{"rank": true, "ranking": true, "排名": true, "名次": true}
)

// tableRow prepares the row that starts with "|" at p: a header row (the
// next line is a separator such as |---|:--:|) sets which columns number
// the rows; a row after it lists the cells to ignore.
func (sc *scanner) tableRow(p int) {
	s := sc.s
	t := &sc.tbl
	t.cells, t.next = t.cells[:0], 0
	eol := lineEnd(s, p)
	if !t.on {
		next := eol + 1
		if next >= len(s) || !isSeparatorRow(s[next:lineEnd(s, next)]) {
			return
		}
		t.on, t.index, t.rank = true, 0, 0
		col := 0
		eachCell(s, p, eol, func(from, to int) {
			cell := strings.Trim(s[from:to], " \t*_`")
			name := strings.ToLower(cell)
			switch {
			case col < 64 && indexHeaders[name]:
				t.index |= 1 << col
			case col < 64 && rankHeaders[name]:
				t.rank |= 1 << col
			case len(cell) == 4 && isYear(cell) || isBareInt(cell) && len(cell) <= maxStructDigits:
				why := IgnoredEnumerator
				if len(cell) == 4 {
					why = IgnoredDate
				}
				k := from + strings.Index(s[from:to], cell)
				t.cells = append(t.cells, cellSpan{k, k + len(cell), why})
			}
			col++
		})
		// A column number is at most the number of columns: "| Stores
		// | 750 |" has a figure in its header, not a 750th column.
		kept := t.cells[:0]
		for _, c := range t.cells {
			if c.why == IgnoredDate || atoiSmall(s[c.start:c.end]) <= col {
				kept = append(kept, c)
			}
		}
		t.cells = kept
		return
	}
	if t.index == 0 && t.rank == 0 {
		return
	}
	col := 0
	eachCell(s, p, eol, func(from, to int) {
		if col < 64 && (t.index|t.rank)&(1<<col) != 0 {
			cell := strings.TrimRight(strings.Trim(s[from:to], " \t*_`"), ".")
			if isBareInt(cell) && len(cell) <= maxStructDigits {
				why := IgnoredEnumerator
				if t.rank&(1<<col) != 0 {
					why = IgnoredOrdinal
				}
				k := from + strings.Index(s[from:to], cell)
				t.cells = append(t.cells, cellSpan{k, k + len(cell), why})
			}
		}
		col++
	})
}

// tableCell reports whether the number starting at start is a cell of
// the current row to ignore, and where it ends.
func (sc *scanner) tableCell(start int) (int, string) {
	t := &sc.tbl
	for t.next < len(t.cells) && t.cells[t.next].start < start {
		t.next++
	}
	if t.next < len(t.cells) && t.cells[t.next].start == start {
		c := t.cells[t.next]
		t.next++
		return c.end, c.why
	}
	return start, ""
}

// eachCell calls f with the bounds of each cell of the row s[p:eol],
// which starts with "|". A "|" escaped with a backslash or inside a
// citation marker ([[m:gmv|万]]) does not end a cell.
func eachCell(s string, p, eol int, f func(from, to int)) {
	from := p + 1
	noClose := false // no "]]" is left on the line: a row full of "[[" stays linear
	for k := p + 1; k < eol; k++ {
		switch s[k] {
		case '\\':
			k++
		case '[':
			if !noClose && k+1 < eol && s[k+1] == '[' {
				if e := strings.Index(s[k:eol], "]]"); e > 0 {
					k += e + 1
				} else {
					noClose = true
				}
			}
		case '|':
			f(from, k)
			from = k + 1
		}
	}
	if strings.TrimSpace(s[from:eol]) != "" {
		f(from, eol)
	}
}

// isSeparatorRow reports whether line is a table's header separator:
// only |, -, : and spaces, with at least one | and one -.
func isSeparatorRow(line string) bool {
	line = strings.TrimRight(line, "\r")
	if !strings.Contains(line, "-") || !strings.Contains(line, "|") {
		return false
	}
	for k := 0; k < len(line); k++ {
		switch line[k] {
		case '|', '-', ':', ' ', '\t':
		default:
			return false
		}
	}
	return true
}

func isBareInt(c string) bool {
	if c == "" || len(c) > 9 {
		return false
	}
	for k := 0; k < len(c); k++ {
		if !isDigit(c[k]) {
			return false
		}
	}
	return true
}

// lineEnd is the offset of the "\n" that ends the line containing p, or
// len(s).
func lineEnd(s string, p int) int {
	if k := strings.IndexByte(s[p:], '\n'); k >= 0 {
		return p + k
	}
	return len(s)
}

package main

import (
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
	"golang.org/x/text/width"
)

// table is a bordered text table: a header row (upper-cased and centred),
// rows (left-aligned) and an optional footer (right-aligned). A cell may
// hold several lines; columns are as wide as their widest line, counted
// in terminal columns (an East Asian wide or full-width character takes
// two, a combining mark none).
type table struct {
	w      io.Writer
	box    bool
	header []string
	rows   [][]string
	footer []string
}

// newTable returns a table that draws with box-drawing characters on a
// terminal and with plain ASCII (+, -, |) anywhere else: a log file, a CI
// job's output or a pipe to grep may not show UTF-8 lines.
func newTable(w io.Writer) *table {
	box := false
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb" {
		box = true
	}
	return &table{w: w, box: box}
}

// Header sets the column titles: underscores read as spaces, and the
// titles are shown in capitals.
func (t *table) Header(cells ...string) {
	t.header = make([]string, len(cells))
	for i, c := range cells {
		t.header[i] = strings.ToUpper(strings.TrimSpace(strings.ReplaceAll(c, "_", " ")))
	}
}

// Append adds a row.
func (t *table) Append(cells ...string) { t.rows = append(t.rows, cells) }

// Footer sets the last row, drawn under a rule and aligned to the right.
func (t *table) Footer(cells ...string) { t.footer = cells }

// borders are the characters of one drawing style: the corners and
// junctions of the top, middle and bottom rules, the horizontal line and
// the column separator.
type borders struct {
	top, mid, bottom [3]string // left, junction, right
	line, sep        string
}

var (
	asciiBorders = borders{
		top: [3]string{"+", "+", "+"}, mid: [3]string{"+", "+", "+"}, bottom: [3]string{"+", "+", "+"},
		line: "-", sep: "|",
	}
	boxBorders = borders{
		top: [3]string{"┌", "┬", "┐"}, mid: [3]string{"├", "┼", "┤"}, bottom: [3]string{"└", "┴", "┘"},
		line: "─", sep: "│",
	}
)

type align int

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// Render writes the table.
func (t *table) Render() error {
	b := asciiBorders
	if t.box {
		b = boxBorders
	}
	ncol := len(t.header)
	for _, r := range t.rows {
		ncol = max(ncol, len(r))
	}
	ncol = max(ncol, len(t.footer))
	if ncol == 0 {
		return nil
	}
	widths := make([]int, ncol)
	measure := func(cells []string) [][]string {
		if cells == nil {
			return nil
		}
		lines := make([][]string, ncol)
		for i := range ncol {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			lines[i] = cellLines(c)
			for _, l := range lines[i] {
				widths[i] = max(widths[i], displayWidth(l))
			}
		}
		return lines
	}
	header := measure(t.header)
	rows := make([][][]string, len(t.rows))
	for i, r := range t.rows {
		rows[i] = measure(r)
	}
	footer := measure(t.footer)

	var sb strings.Builder
	rule := func(ends [3]string) {
		sb.WriteString(ends[0])
		for i, w := range widths {
			if i > 0 {
				sb.WriteString(ends[1])
			}
			sb.WriteString(strings.Repeat(b.line, w+2))
		}
		sb.WriteString(ends[2])
		sb.WriteByte('\n')
	}
	row := func(cells [][]string, a align) {
		height := 1
		for _, ls := range cells {
			height = max(height, len(ls))
		}
		for k := range height {
			sb.WriteString(b.sep)
			for i, ls := range cells {
				l := ""
				if k < len(ls) {
					l = ls[k]
				}
				sb.WriteByte(' ')
				sb.WriteString(pad(l, widths[i], a))
				sb.WriteByte(' ')
				sb.WriteString(b.sep)
			}
			sb.WriteByte('\n')
		}
	}
	rule(b.top)
	if header != nil {
		row(header, alignCenter)
		if len(rows) > 0 || footer != nil {
			rule(b.mid)
		}
	}
	for _, r := range rows {
		row(r, alignLeft)
	}
	if footer != nil {
		if len(rows) > 0 {
			rule(b.mid)
		}
		row(footer, alignRight)
	}
	rule(b.bottom)
	_, err := io.WriteString(t.w, sb.String())
	return err
}

// cellLines splits a cell into its lines, each trimmed of surrounding
// spaces, with a tab shown as four spaces.
func cellLines(c string) []string {
	c = strings.TrimSpace(c)
	if c == "" {
		return []string{""}
	}
	ls := strings.Split(strings.ReplaceAll(c, "\r\n", "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.ReplaceAll(strings.TrimSpace(l), "\t", "    ")
	}
	return ls
}

// pad fills s with spaces to w terminal columns.
func pad(s string, w int, a align) string {
	gap := w - displayWidth(s)
	if gap <= 0 {
		return s
	}
	switch a {
	case alignRight:
		return strings.Repeat(" ", gap) + s
	case alignCenter:
		left := gap / 2
		return strings.Repeat(" ", left) + s + strings.Repeat(" ", gap-left)
	}
	return s + strings.Repeat(" ", gap)
}

// displayWidth is the number of terminal columns s takes: two for an East
// Asian wide or full-width character (CJK ideographs, kana, hangul,
// full-width forms, most emoji), none for a combining mark (variation
// selectors among them), a format character (such as a zero-width joiner)
// or a control character, one for anything else.
func displayWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r < utf8.RuneSelf:
			if r >= 0x20 && r != 0x7f {
				n++
			}
		case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r), unicode.Is(unicode.Cf, r), unicode.IsControl(r):
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				n += 2
			default:
				n++
			}
		}
	}
	return n
}

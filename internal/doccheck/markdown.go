package doccheck

import (
	"github.com/agentlab/agentlab/docs"
	"github.com/agentlab/agentlab/internal/lazyre"
	"strings"
)

// Entry is what the diagnostics page says about one code. A code may be
// named in several places (a summary table and a paragraph below it); the
// entry merges them.
type Entry struct {
	Code    string
	Line    int  // first line that names the code as an entry
	Example bool // a bad example is given
	Fix     bool // the fix is given
}

// Complete reports whether the entry has both a bad example and a fix.
func (e Entry) Complete() bool { return e.Example && e.Fix }

var (
	// firstCode finds the code a table row is about: the first `CODE` in
	// its first cell.
	firstCode = lazyre.New("`([EWH]-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)`")
	// detailStart is a paragraph about one code: **CODE** at the start of
	// a line, or a heading ### CODE.
	detailStart = lazyre.New(`^(?:\*\*([EWH]-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)\*\*|#{2,6} +` + "`?" + `([EWH]-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)` + "`?" + `\s*$)`)
)

// Documented reads a diagnostics page and returns its entries by code.
//
// Two forms count as an entry:
//
//   - a row of a table whose first column is headed "code", naming the
//     code in backticks in its first cell; a column
//     headed "bad" or "example" gives the example, one headed "fix" the fix;
//   - a paragraph starting with **CODE** (or a heading "### CODE"), which
//     runs to the next such paragraph, heading or table; it gives an example
//     when it holds a fenced block or inline code before "Fix:", and a fix
//     when it says "Fix:".
//
// Codes merely mentioned in running text are not entries.
func Documented(md []byte) map[string]Entry {
	out := map[string]Entry{}
	add := func(code string, line int, example, fix bool) {
		e, ok := out[code]
		if !ok {
			e = Entry{Code: code, Line: line}
		}
		e.Example = e.Example || example
		e.Fix = e.Fix || fix
		out[code] = e
	}
	lines := strings.Split(string(md), "\n")
	var header []string // columns of the current table, lower-case
	inFence := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(line, "|") {
			cells := docs.SplitTableRow(line)
			switch {
			case header == nil:
				header = docs.LowerCells(cells)
			case docs.IsTableRule(cells), header[0] != "code":
			default:
				m := firstCode.FindStringSubmatch(cells[0])
				if m == nil {
					break
				}
				var example, fix bool
				for j := 1; j < len(cells) && j < len(header); j++ {
					if cells[j] == "" {
						continue
					}
					switch header[j] {
					case "bad", "example", "bad example":
						example = true
					case "fix":
						fix = true
					}
				}
				add(m[1], i+1, example, fix)
			}
			continue
		}
		header = nil
		m := detailStart.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		code := m[1] + m[2]
		start := i
		var body []string
		body = append(body, strings.TrimPrefix(line, "**"+code+"**"))
		fence := false
		for i+1 < len(lines) {
			next := lines[i+1]
			if strings.HasPrefix(strings.TrimSpace(next), "```") {
				fence = !fence
			} else if !fence && (strings.HasPrefix(next, "#") || strings.HasPrefix(next, "|") || detailStart.MatchString(next)) {
				break
			}
			body = append(body, next)
			i++
		}
		hasExample, hasFix := readDetail(body)
		add(code, start+1, hasExample, hasFix)
	}
	return out
}

// readDetail reads the lines of a paragraph about one code: an example is
// a fenced block or inline code before the fix, and the fix is "Fix:"
// outside fenced blocks.
func readDetail(body []string) (example, fix bool) {
	fence := false
	for _, l := range body {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			example = true
			continue
		}
		if fence {
			continue
		}
		before, _, found := strings.Cut(l, "Fix:")
		if strings.Count(before, "`") >= 2 {
			example = true
		}
		if found {
			return example, true
		}
	}
	return example, false
}

// Package docs holds the user documentation. The binary embeds
// diagnostics.md, so that the SARIF output of lint carries each code's
// description, fix and link exactly as the page states them: code
// scanning shows what the documentation says, never a second wording.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package docs

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/internal/lazyre"
)

//go:embed diagnostics.md
var diagnosticsMD []byte

// DiagnosticsPage is the path of the diagnostics page in the repository.
const DiagnosticsPage = "docs/diagnostics.md"

// Code is what docs/diagnostics.md says about one diagnostic code.
type Code struct {
	Code string
	// Anchor is the id of the <a id="…"></a> that marks the code's entry
	// ("" when there is none): DiagnosticsPage#Anchor links to it.
	Anchor string
	// Subject is the topic of the "## " section the code is under, e.g.
	// "reading the file" for "## E-YAML — reading the file".
	Subject string
	// Meaning is the "meaning" or "rule" cell of the code's table row.
	Meaning string
	// Bad is the "bad" cell of the code's table row (markdown).
	Bad string
	// Fix is the "fix" cell, or the text after "Fix:" in its paragraph.
	Fix string
	// Detail is the paragraph about the code (markdown, without the
	// leading **CODE** and without the fix).
	Detail string
}

var (
	codesOnce sync.Once
	codes     map[string]Code
)

// Codes returns every code the embedded diagnostics page documents.
func Codes() map[string]Code {
	codesOnce.Do(func() { codes = ParseCodes(diagnosticsMD) })
	return codes
}

var (
	anchorRe    = lazyre.New(`<a id="([a-z0-9-]+)"></a>`)
	cellCodeRe  = lazyre.New("`([EWH]-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)`")
	paragraphRe = lazyre.New(`^(?:<a id="[a-z0-9-]+"></a>)?\*\*([EWH]-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*)\*\*`)
)

// ParseCodes reads a diagnostics page: the rows of tables whose first
// column is headed "code" and the paragraphs starting with **CODE**. An
// anchor <a id="…"></a> belongs to the code on its line or on the next
// line.
func ParseCodes(md []byte) map[string]Code {
	out := map[string]Code{}
	get := func(c string) Code {
		e, ok := out[c]
		if !ok {
			e.Code = c
		}
		return e
	}
	lines := strings.Split(string(md), "\n")
	var header []string
	subject, pendingAnchor := "", ""
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
		if h, ok := strings.CutPrefix(line, "## "); ok {
			subject = h
			if _, after, found := strings.Cut(h, " — "); found {
				subject = after
			}
			header = nil
			continue
		}
		if strings.HasPrefix(line, "|") {
			cells := SplitTableRow(line)
			switch {
			case header == nil:
				header = LowerCells(cells)
			case IsTableRule(cells) || header[0] != "code":
			default:
				m := cellCodeRe.FindStringSubmatch(cells[0])
				if m == nil {
					break
				}
				e := get(m[1])
				if a := anchorRe.FindStringSubmatch(cells[0]); a != nil && e.Anchor == "" {
					e.Anchor = a[1]
				}
				e.Subject = orElse(e.Subject, subject)
				for j := 1; j < len(cells) && j < len(header); j++ {
					switch header[j] {
					case "meaning", "rule":
						e.Meaning = orElse(e.Meaning, cells[j])
					case "bad", "example", "bad example":
						e.Bad = orElse(e.Bad, cells[j])
					case "fix":
						e.Fix = orElse(e.Fix, cells[j])
					}
				}
				out[m[1]] = e
			}
			continue
		}
		header = nil
		if a := anchorRe.FindStringSubmatch(line); a != nil && strings.TrimSpace(line) == a[0] {
			pendingAnchor = a[1]
			continue
		}
		m := paragraphRe.FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) != "" {
				pendingAnchor = ""
			}
			continue
		}
		e := get(m[1])
		if a := anchorRe.FindStringSubmatch(line); a != nil {
			pendingAnchor = a[1]
		}
		if e.Anchor == "" {
			e.Anchor = pendingAnchor
		}
		pendingAnchor = ""
		e.Subject = orElse(e.Subject, subject)
		body := []string{strings.TrimSpace(paragraphRe.ReplaceAllString(line, ""))}
		fence := false
		for i+1 < len(lines) {
			next := lines[i+1]
			if strings.HasPrefix(strings.TrimSpace(next), "```") {
				fence = !fence
			} else if !fence && (strings.HasPrefix(next, "#") || strings.HasPrefix(next, "|") ||
				paragraphRe.MatchString(next) || strings.TrimSpace(next) == anchorLine(next)) {
				break
			}
			body = append(body, next)
			i++
		}
		text := strings.TrimSpace(strings.Join(body, "\n"))
		text = strings.TrimSpace(strings.TrimLeft(text, "—- "))
		if before, fix, ok := cutFix(text); ok {
			e.Fix = orElse(e.Fix, fix)
			text = before
		}
		e.Detail = orElse(e.Detail, strings.TrimSpace(text))
		out[m[1]] = e
	}
	return out
}

// anchorLine returns the anchor tag when a line is nothing else, else a
// value no trimmed line equals.
func anchorLine(line string) string {
	if a := anchorRe.FindString(line); a != "" && strings.TrimSpace(line) == a {
		return a
	}
	return "\x00"
}

// cutFix splits a paragraph at its "Fix:" outside fenced blocks.
func cutFix(text string) (before, fix string, ok bool) {
	fence := false
	off := 0
	for _, l := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
		} else if !fence {
			if i := strings.Index(l, "Fix:"); i >= 0 {
				return text[:off+i], strings.Join(strings.Fields(text[off+i+len("Fix:"):]), " "), true
			}
		}
		off += len(l)
	}
	return text, "", false
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// SplitTableRow splits "| a | b |" into trimmed cells as GitHub does:
// every unescaped pipe ends a cell, inside code spans too, and \| is a
// pipe inside a cell. The documentation checks read the page with it too.
func SplitTableRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// IsTableRule reports whether a row is the |---|---| line under a header.
func IsTableRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

// LowerCells returns the cells in lower case (a header row compared by name).
func LowerCells(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.ToLower(v)
	}
	return out
}

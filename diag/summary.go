package diag

import "strings"

// Summary is the sorted diagnostics as plain text, one per line, each
// followed by its fix as " (fix: …)". It is the Error text of the error
// types that carry a List (a failed load, for instance), so that every one
// of them reads the same and a user sees all problems and their fixes at
// once.
func (l List) Summary() string {
	var b strings.Builder
	for i, d := range l.Sorted() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
		if d.Fix != "" {
			b.WriteString(" (fix: " + d.Fix + ")")
		}
	}
	return b.String()
}

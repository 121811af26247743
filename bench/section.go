package bench

import (
	"fmt"
	"strings"
)

// Markers delimit the part of docs/performance.md that bench/run.sh
// rewrites; everything outside them is left as it is.
const (
	BeginMarker = "<!-- bench:begin -->"
	EndMarker   = "<!-- bench:end -->"
)

// ReplaceSection returns doc with the text between BeginMarker and
// EndMarker replaced by body. A document without the markers gets them,
// with body, after its first line (the title), so the summary stays at the
// top. Markers out of order, or present more than once, are an error:
// rewriting then could destroy text someone wrote by hand.
func ReplaceSection(doc, body string) (string, error) {
	nb, ne := strings.Count(doc, BeginMarker), strings.Count(doc, EndMarker)
	block := BeginMarker + "\n" + strings.TrimRight(body, "\n") + "\n" + EndMarker
	switch {
	case nb == 0 && ne == 0:
		title, rest, _ := strings.Cut(doc, "\n")
		return title + "\n\n" + block + "\n" + rest, nil
	case nb != 1 || ne != 1:
		return "", fmt.Errorf("expected one %s and one %s, found %d and %d", BeginMarker, EndMarker, nb, ne)
	}
	i, j := strings.Index(doc, BeginMarker), strings.Index(doc, EndMarker)
	if j < i {
		return "", fmt.Errorf("%s comes before %s", EndMarker, BeginMarker)
	}
	return doc[:i] + block + doc[j+len(EndMarker):], nil
}

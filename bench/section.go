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
	if !strings.Contains(doc, BeginMarker) && !strings.Contains(doc, EndMarker) {
		block := BeginMarker + "\n" + strings.TrimRight(body, "\n") + "\n" + EndMarker
		title, rest, _ := strings.Cut(doc, "\n")
		return title + "\n\n" + block + "\n" + rest, nil
	}
	return ReplaceMarked(doc, BeginMarker, EndMarker, body)
}

// The retrieval quality table has its own markers in docs/performance.md.
const (
	RetrievalBegin = "<!-- retrieval:begin -->"
	RetrievalEnd   = "<!-- retrieval:end -->"
)

// ReplaceMarked returns doc with the text between begin and end replaced
// by body. Both markers must be there, once each and in order.
func ReplaceMarked(doc, begin, end, body string) (string, error) {
	nb, ne := strings.Count(doc, begin), strings.Count(doc, end)
	if nb != 1 || ne != 1 {
		return "", fmt.Errorf("expected one %s and one %s, found %d and %d", begin, end, nb, ne)
	}
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if j < i {
		return "", fmt.Errorf("%s comes before %s", end, begin)
	}
	block := begin + "\n" + strings.TrimRight(body, "\n") + "\n" + end
	return doc[:i] + block + doc[j+len(end):], nil
}

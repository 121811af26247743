package diag

import (
	"fmt"
	"strings"
)

// Checked is what a lint looked at. Write reports it so that a CI gate
// can tell "clean" from "found nothing to check": text ends with a
// summary line, JSON carries a "checked" object and SARIF lists the files
// as run artifacts with the same counts in the run's properties.
type Checked struct {
	Files []CheckedFile
}

// CheckedFile is one file checked and its kind ("flow", "card", "patch",
// "suite").
type CheckedFile struct {
	Path string
	Kind string
}

// checkedKinds is the order kinds are counted in.
var checkedKinds = []string{"flow", "card", "patch", "suite"}

// pluralKey is the key a kind is counted under.
func pluralKey(kind string) string {
	if kind == "patch" {
		return "patches"
	}
	return kind + "s"
}

// Counts returns the number of files of each kind, with "files" the total:
// the "checked" object of the JSON and SARIF formats.
func (c *Checked) Counts() map[string]int {
	m := map[string]int{"files": len(c.Files)}
	for _, k := range checkedKinds {
		m[pluralKey(k)] = 0
	}
	for _, f := range c.Files {
		m[pluralKey(f.Kind)]++
	}
	return m
}

// summary is the text format's last line, e.g.
// "3 files checked (2 flows, 1 card): 1 error(s), 0 warning(s)".
func (c *Checked) summary(errors, warnings int) string {
	counts := c.Counts()
	var parts []string
	for _, k := range checkedKinds {
		if n := counts[pluralKey(k)]; n > 0 {
			parts = append(parts, plural(n, k))
		}
	}
	s := plural(len(c.Files), "file") + " checked"
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%s: %d error(s), %d warning(s)", s, errors, warnings)
}

func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case noun == "patch":
		return fmt.Sprintf("%d patches", n)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

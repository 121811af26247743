// Package diag defines the one diagnostic type every check in agentlab
// reports, so that every output format (text, JSON, SARIF, GitHub
// annotations) is produced from the same data.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package diag

import (
	"fmt"
	"sort"
)

// Severity orders how bad a finding is.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Hint    Severity = "hint"
)

// Diagnostic is one finding at a position in a file. Line and Col are
// 1-based; 0 means "the whole file".
type Diagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s %s %s", d.File, d.Line, d.Col, d.Severity, d.Code, d.Message)
}

// Error lets a single diagnostic travel as a Go error.
func (d Diagnostic) Error() string { return d.String() }

// Pos is a 1-based position in a file.
type Pos struct {
	Line int
	Col  int
}

// List collects diagnostics; checks append and never stop at the first.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(file string, p Pos, sev Severity, code, fix, format string, args ...any) {
	*l = append(*l, Diagnostic{
		File: file, Line: p.Line, Col: p.Col, Severity: sev, Code: code,
		Message: fmt.Sprintf(format, args...), Fix: fix,
	})
}

// Errorf appends an error-severity diagnostic.
func (l *List) Errorf(file string, p Pos, code, fix, format string, args ...any) {
	l.Add(file, p, Error, code, fix, format, args...)
}

// Warnf appends a warning-severity diagnostic.
func (l *List) Warnf(file string, p Pos, code, fix, format string, args ...any) {
	l.Add(file, p, Warning, code, fix, format, args...)
}

// Hintf appends a hint-severity diagnostic.
func (l *List) Hintf(file string, p Pos, code, fix, format string, args ...any) {
	l.Add(file, p, Hint, code, fix, format, args...)
}

// Counts returns the number of errors and warnings.
func (l List) Counts() (errors, warnings int) {
	for _, d := range l {
		switch d.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		}
	}
	return
}

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	e, _ := l.Counts()
	return e > 0
}

// Sorted returns the diagnostics ordered by file, line, column and code,
// with exact duplicates removed.
func (l List) Sorted() List {
	out := make(List, len(l))
	copy(out, l)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
	dedup := out[:0]
	for i, d := range out {
		if i > 0 && d == out[i-1] {
			continue
		}
		dedup = append(dedup, d)
	}
	return dedup
}

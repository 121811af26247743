package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/sources"
)

// diagnosticsOf returns the positioned diagnostics an error from run or
// resume carries: a configuration table with mistakes ([permissions],
// [http_fetch], [mcp], [providers]) or data sources that cannot be loaded.
// Such errors are printed through the diagnostics printer, one finding
// per problem, instead of as one line of text.
func diagnosticsOf(err error) (diag.List, bool) {
	var ce *run.ConfigError
	var pe *provider.ConfigError
	var le *sources.LoadError
	switch {
	case errors.As(err, &ce):
		return ce.Diagnostics, true
	case errors.As(err, &pe):
		return pe.Diagnostics, true
	case errors.As(err, &le):
		return le.Diagnostics, true
	}
	return nil, false
}

// writeDiagnostics prints l in the command's format: with json, the
// diagnostics object of docs/cli.md on stdout (and nothing more on stderr,
// so that stdout stays one JSON document); with text, the usual
// file:line:col lines with the source excerpt and the fix on stderr.
// It returns the error that exits with code, with a closing sentence in
// text mode.
func writeDiagnostics(stdout, stderr io.Writer, format string, l diag.List, code int, closing string) error {
	// Config files are found by walking up from the flow's absolute
	// directory; name them as lint names files, from where the user is.
	l = relToWD(l)
	if format == "json" {
		if err := diag.WriteJSON(stdout, l.Sorted()); err != nil {
			return err
		}
		return exitCode(code)
	}
	if err := diag.WriteText(stderr, l.Sorted(), diag.TextOptions{Color: stderr == io.Writer(os.Stderr) && useColor(os.Stderr)}); err != nil {
		return err
	}
	if closing == "" {
		return exitCode(code)
	}
	return exitf(code, "%s", closing)
}

// relToWD writes the file of each diagnostic relative to the working
// directory when it lies under it. A run resolves a script file against
// the flow's directory made absolute, so its warnings would otherwise
// name a long absolute path where lint names the path as the user would
// type it; a file outside the working directory keeps its absolute path
// (a ../../ chain says less than the path itself).
func relToWD(l diag.List) diag.List {
	wd, err := os.Getwd()
	if err != nil {
		return l
	}
	out := make(diag.List, len(l))
	for i, d := range l {
		if filepath.IsAbs(d.File) {
			if r, err := filepath.Rel(wd, d.File); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				d.File = r
			}
		}
		out[i] = d
	}
	return out
}

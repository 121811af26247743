package main

import (
	"io"
	"os"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"golang.org/x/term"
)

// newTable returns a table that draws with box-drawing characters on a
// terminal and with plain ASCII (+, -, |) anywhere else: a log file, a CI
// job's output or a pipe to grep may not show UTF-8 lines.
func newTable(w io.Writer) *tablewriter.Table {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb" {
		return tablewriter.NewWriter(w)
	}
	return tablewriter.NewTable(w, tablewriter.WithSymbols(tw.NewSymbols(tw.StyleASCII)))
}

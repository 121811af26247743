package diag

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/fsutil"
)

// Formats lists the output formats every diagnostic writer supports.
var Formats = []string{"text", "json", "sarif", "github"}

// Write prints the list in the named format. Diagnostics are sorted and
// de-duplicated first, so every format shows the same findings in the same
// order.
func Write(w io.Writer, format string, l List, opt TextOptions) error {
	l = l.Sorted()
	switch format {
	case "text":
		return WriteText(w, l, opt)
	case "json":
		return writeJSON(w, l, opt.Checked)
	case "sarif":
		return writeSARIF(w, l, opt.ToolVersion, opt.Checked)
	case "github":
		return WriteGitHub(w, l)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// TextOptions tune the text format.
type TextOptions struct {
	Color bool
	// ReadFile returns a file's content for the source-line excerpt; nil
	// reads regular files of up to 64 MiB (a diagnostic about /dev/zero or
	// a FIFO shows no excerpt rather than reading forever).
	ReadFile func(string) ([]byte, error)
	// ToolVersion goes into SARIF's tool.driver.version.
	ToolVersion string
	// Checked, when set, is what a lint looked at: every format reports it.
	Checked *Checked
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiGray   = "\x1b[90m"
)

// WriteText prints `file:line:col: severity code message`, the offending
// source line with a caret under the column, and the fix sentence.
func WriteText(w io.Writer, l List, opt TextOptions) error {
	read := opt.ReadFile
	if read == nil {
		read = func(p string) ([]byte, error) { return fsutil.ReadFileCapped(p, 64<<20, "") }
	}
	cache := map[string][]string{}
	lines := func(file string) []string {
		if ls, ok := cache[file]; ok {
			return ls
		}
		var ls []string
		if b, err := read(file); err == nil && len(b) <= 64<<20 {
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
			for sc.Scan() {
				ls = append(ls, sc.Text())
			}
		}
		cache[file] = ls
		return ls
	}
	paint := func(code, s string) string {
		if !opt.Color {
			return s
		}
		return code + s + ansiReset
	}
	bw := bufio.NewWriter(w)
	for _, d := range l {
		sevColor := ansiCyan
		switch d.Severity {
		case Error:
			sevColor = ansiRed
		case Warning:
			sevColor = ansiYellow
		}
		fmt.Fprintf(bw, "%s %s %s %s\n",
			paint(ansiBold, fmt.Sprintf("%s:%d:%d:", d.File, d.Line, d.Col)),
			paint(sevColor, string(d.Severity)),
			paint(ansiGray, d.Code),
			d.Message)
		if ls := lines(d.File); d.Line >= 1 && d.Line <= len(ls) {
			src := ls[d.Line-1]
			// A NUL byte marks a binary file (a SQLite database starts with
			// "SQLite format 3\x00"): its "line" is not worth showing.
			if utf8.ValidString(src) && len(src) <= 400 && !strings.ContainsRune(src, 0) {
				fmt.Fprintf(bw, "  %s\n", strings.ReplaceAll(src, "\t", " "))
				if d.Col >= 1 && d.Col <= len(src)+1 {
					// Columns are byte-based; pad with the display width of the prefix.
					pad := utf8.RuneCountInString(src[:d.Col-1])
					fmt.Fprintf(bw, "  %s%s\n", strings.Repeat(" ", pad), paint(sevColor, "^"))
				}
			}
		}
		if d.Fix != "" {
			fmt.Fprintf(bw, "  %s %s\n", paint(ansiCyan, "fix:"), d.Fix)
		}
	}
	e, wn := l.Counts()
	switch {
	case opt.Checked != nil:
		fmt.Fprintln(bw, opt.Checked.summary(e, wn))
	case len(l) > 0:
		fmt.Fprintf(bw, "%d error(s), %d warning(s)\n", e, wn)
	}
	return bw.Flush()
}

// jsonReport is the stable JSON shape of docs/cli.md.
type jsonReport struct {
	Diagnostics []Diagnostic   `json:"diagnostics"`
	Errors      int            `json:"errors"`
	Warnings    int            `json:"warnings"`
	Checked     map[string]int `json:"checked,omitempty"`
}

// WriteJSON prints {"diagnostics":[…],"errors":N,"warnings":N}.
func WriteJSON(w io.Writer, l List) error { return writeJSON(w, l, nil) }

// writeJSON adds "checked": {"files":N,"flows":N,…} when c is set.
func writeJSON(w io.Writer, l List, c *Checked) error {
	e, wn := l.Counts()
	var counts map[string]int
	if c != nil {
		counts = c.Counts()
	}
	if l == nil {
		l = List{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonReport{Diagnostics: l, Errors: e, Warnings: wn, Checked: counts})
}

// WriteGitHub prints GitHub Actions workflow commands, one annotation per
// diagnostic (hints become notices).
func WriteGitHub(w io.Writer, l List) error {
	bw := bufio.NewWriter(w)
	for _, d := range l {
		cmd := "notice"
		switch d.Severity {
		case Error:
			cmd = "error"
		case Warning:
			cmd = "warning"
		}
		msg := d.Message
		if d.Fix != "" {
			msg += "\nfix: " + d.Fix
		}
		line, col := d.annotationPos()
		fmt.Fprintf(bw, "::%s file=%s,line=%d,col=%d,title=%s::%s\n",
			cmd, ghProperty(d.File), line, col, ghProperty(d.Code), ghData(msg))
	}
	return bw.Flush()
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// FileLimits caps what the file tools return. Zero fields take defaults.
type FileLimits struct {
	ReadBytes   int // most bytes file_read returns (256 KiB)
	ReadLines   int // default line count of one file_read (400)
	ListEntries int // most entries file_list returns (500)
	GrepResults int // most matches file_grep returns (100)
	GrepFileMax int // files larger than this are skipped by file_grep (2 MiB)
	LineChars   int // a matched line is cut to this many bytes (300)
}

func (l FileLimits) withDefaults() FileLimits {
	def := func(p *int, d int) {
		if *p <= 0 {
			*p = d
		}
	}
	def(&l.ReadBytes, 256<<10)
	def(&l.ReadLines, 400)
	def(&l.ListEntries, 500)
	def(&l.GrepResults, 100)
	def(&l.GrepFileMax, 2<<20)
	def(&l.LineChars, 300)
	return l
}

// FileTools returns file_read, file_list and file_grep over ws.
func FileTools(ws *Workspace, limits FileLimits) []Tool {
	l := limits.withDefaults()
	return []Tool{&fileRead{ws, l}, &fileList{ws, l}, &fileGrep{ws, l}}
}

func decodeArgs(tool string, args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return refuse(tool, CodeArgs, "pass a JSON object matching the schema", "arguments cannot be read: %v", err)
	}
	return nil
}

// looksBinary reports a NUL byte in the first 8 KiB.
func looksBinary(b []byte) bool { return bytes.IndexByte(b[:min(len(b), 8<<10)], 0) >= 0 }

type fileRead struct {
	ws *Workspace
	l  FileLimits
}

func (t *fileRead) Info() Info {
	return Info{Name: "file_read", Effect: Read, Output: textResult,
		Description: fmt.Sprintf("Read a text file of the workspace. Lines come back as \"N: text\". At most %d lines and %d bytes per call: use offset to continue.", t.l.ReadLines, t.l.ReadBytes),
		Schema: map[string]any{"type": "object", "additionalProperties": false, "required": []any{"path"},
			"properties": map[string]any{
				"path":   map[string]any{"type": "string", "description": "path relative to the workspace root"},
				"offset": map[string]any{"type": "integer", "minimum": 1, "description": "first line to return (1-based)"},
				"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": 5000, "description": "how many lines"},
			}}}
}

func (t *fileRead) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	var a struct {
		Path          string
		Offset, Limit int
	}
	if err := decodeArgs("file_read", args, &a); err != nil {
		return nil, err
	}
	rel, err := t.ws.resolve("file_read", a.Path)
	if err != nil {
		return nil, err
	}
	f, err := t.ws.root.Open(rel)
	if err != nil {
		return nil, openErr("file_read", a.Path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, refuse("file_read", CodeArgs, "use file_list for directories", "%q is a directory", a.Path)
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 {
		a.Limit = t.l.ReadLines
	}
	br := bufio.NewReader(f)
	head, _ := br.Peek(8 << 10)
	if looksBinary(head) {
		return nil, refuse("file_read", CodeArgs, "only text files can be read", "%q is a binary file", a.Path)
	}
	var b strings.Builder
	line, last := 0, 0
	truncated := false
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := br.ReadString('\n')
		if s == "" && err != nil {
			break
		}
		line++
		if line >= a.Offset {
			if line >= a.Offset+a.Limit || b.Len()+len(s) > t.l.ReadBytes {
				truncated = true
				break
			}
			fmt.Fprintf(&b, "%d: %s", line, strings.TrimRight(s, "\n"))
			b.WriteByte('\n')
			last = line
		}
		if err == io.EOF {
			break
		}
	}
	text := b.String()
	if truncated {
		text += fmt.Sprintf("[truncated after line %d; call again with offset=%d]\n", last, last+1)
	}
	return &Result{Text: text, Truncated: truncated,
		Value: map[string]any{"path": rel, "from_line": a.Offset, "to_line": last, "truncated": truncated}}, nil
}

type fileList struct {
	ws *Workspace
	l  FileLimits
}

func (t *fileList) Info() Info {
	return Info{Name: "file_list", Effect: Read, Output: textResult,
		Description: fmt.Sprintf("List a directory of the workspace, one entry per line; directories end in /. recursive lists the whole tree. At most %d entries.", t.l.ListEntries),
		Schema: map[string]any{"type": "object", "additionalProperties": false,
			"properties": map[string]any{
				"path":      map[string]any{"type": "string", "description": "directory relative to the workspace root (default: the root)"},
				"recursive": map[string]any{"type": "boolean"},
			}}}
}

func (t *fileList) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	var a struct {
		Path      string
		Recursive bool
	}
	if err := decodeArgs("file_list", args, &a); err != nil {
		return nil, err
	}
	rel, err := t.ws.resolve("file_list", a.Path)
	if err != nil {
		return nil, err
	}
	if st, err := t.ws.root.Stat(rel); err != nil {
		return nil, openErr("file_list", a.Path, err)
	} else if !st.IsDir() {
		return nil, refuse("file_list", CodeArgs, "use file_read for files", "%q is not a directory", a.Path)
	}
	var entries []string
	truncated := false
	fsys := t.ws.root.FS()
	err = fs.WalkDir(fsys, rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable subdirectory is left out
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if p == rel {
			return nil
		}
		if len(entries) == t.l.ListEntries {
			truncated = true
			return fs.SkipAll
		}
		name := p
		switch {
		case d.IsDir():
			name += "/"
		case d.Type()&fs.ModeSymlink != 0:
			name += "@"
		}
		entries = append(entries, name)
		if d.IsDir() && !a.Recursive {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	text := strings.Join(entries, "\n")
	if len(entries) > 0 {
		text += "\n"
	}
	if truncated {
		text += fmt.Sprintf("[truncated at %d entries; list a subdirectory]\n", t.l.ListEntries)
	}
	return &Result{Text: text, Truncated: truncated, Value: map[string]any{"entries": entries, "truncated": truncated}}, nil
}

type fileGrep struct {
	ws *Workspace
	l  FileLimits
}

func (t *fileGrep) Info() Info {
	return Info{Name: "file_grep", Effect: Read, Output: textResult,
		Description: fmt.Sprintf("Search the workspace's text files for a regular expression (RE2 syntax). Results are lines \"path:line: text\". At most %d matches; binary files and files over %d bytes are skipped.", t.l.GrepResults, t.l.GrepFileMax),
		Schema: map[string]any{"type": "object", "additionalProperties": false, "required": []any{"pattern"},
			"properties": map[string]any{
				"pattern":     map[string]any{"type": "string", "minLength": 1, "description": "RE2 regular expression"},
				"path":        map[string]any{"type": "string", "description": "file or directory to search (default: the whole workspace)"},
				"glob":        map[string]any{"type": "string", "description": "only files whose name matches, e.g. *.md"},
				"ignore_case": map[string]any{"type": "boolean"},
			}}}
}

// GrepMatch is one line found by file_grep.
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

func (t *fileGrep) Call(ctx context.Context, args json.RawMessage) (*Result, error) {
	var a struct {
		Pattern, Path, Glob string
		IgnoreCase          bool `json:"ignore_case"`
	}
	if err := decodeArgs("file_grep", args, &a); err != nil {
		return nil, err
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, refuse("file_grep", CodeArgs, "write the pattern in RE2 syntax (no lookaround or backreferences)", "pattern does not compile: %v", err)
	}
	if a.Glob != "" {
		if _, err := path.Match(a.Glob, "x"); err != nil {
			return nil, refuse("file_grep", CodeArgs, "use a glob like *.md", "glob %q is not valid", a.Glob)
		}
	}
	rel, err := t.ws.resolve("file_grep", a.Path)
	if err != nil {
		return nil, err
	}
	if _, err := t.ws.root.Stat(rel); err != nil {
		return nil, openErr("file_grep", a.Path, err)
	}
	var matches []GrepMatch
	truncated := false
	fsys := t.ws.root.FS()
	err = fs.WalkDir(fsys, rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if a.Glob != "" {
			if ok, _ := path.Match(a.Glob, path.Base(p)); !ok {
				return nil
			}
		}
		if !d.Type().IsRegular() {
			// A link inside the workspace is searched when it resolves inside
			// it; resolve refuses the others.
			if _, err := t.ws.resolve("file_grep", p); err != nil {
				return nil
			}
		}
		more, err := t.grepFile(fsys, p, re, &matches)
		if err != nil {
			return nil
		}
		if more {
			truncated = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, m := range matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
	}
	if truncated {
		fmt.Fprintf(&b, "[truncated at %d matches; narrow the pattern, path or glob]\n", t.l.GrepResults)
	}
	if len(matches) == 0 {
		b.WriteString("no matches\n")
	}
	return &Result{Text: b.String(), Truncated: truncated, Value: map[string]any{"matches": matches, "truncated": truncated}}, nil
}

// grepFile appends the matches of one file; it reports true when the cap
// was reached with more matches left.
func (t *fileGrep) grepFile(fsys fs.FS, p string, re *regexp.Regexp, out *[]GrepMatch) (bool, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > int64(t.l.GrepFileMax) {
		return false, err
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(t.l.GrepFileMax)))
	if err != nil || looksBinary(data) {
		return false, err
	}
	for i, line := range strings.Split(string(data), "\n") {
		if !re.MatchString(line) {
			continue
		}
		if len(*out) == t.l.GrepResults {
			return true, nil
		}
		line = strings.TrimRight(line, "\r")
		if len(line) > t.l.LineChars {
			cut := t.l.LineChars
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut] + "…"
		}
		*out = append(*out, GrepMatch{Path: p, Line: i + 1, Text: line})
	}
	return false, nil
}

// textResult is what the file tools return to a model: their text.
var textResult = map[string]any{"type": "string"}

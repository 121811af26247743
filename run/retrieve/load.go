package retrieve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentlab/agentlab/diag"
)

// Doc is one loaded document. Path is relative to the loaded folder and
// slash-separated on every platform, so that hits name the same file on
// every machine. Text is the searchable text: UTF-8, line endings
// normalised to \n, and for HTML the visible text only. Passage offsets
// are byte offsets into Text.
type Doc struct {
	Path string
	Text string
}

// Default size caps. A retrieve folder is a small, curated knowledge base;
// anything much larger is usually a wrong path (a home directory, a data
// dump), and refusing it early is kinder than indexing it for minutes.
const (
	DefaultMaxFileBytes  = 4 << 20
	DefaultMaxTotalBytes = 64 << 20
	DefaultMaxFiles      = 10000
)

// LoadOptions caps what LoadDir reads. Zero or negative fields take the
// defaults above.
type LoadOptions struct {
	MaxFileBytes  int64
	MaxTotalBytes int64
	MaxFiles      int
}

func (o LoadOptions) withDefaults() LoadOptions {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	return o
}

// kindOf says how a file is read, from its extension (case-insensitive);
// "" means the file is not a document and is skipped.
func kindOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown":
		return "md"
	case ".txt":
		return "txt"
	case ".html", ".htm":
		return "html"
	}
	return ""
}

// hidden reports names that are skipped with everything under them:
// dot-files and dot-folders (.git, .DS_Store, editor swap files).
func hidden(name string) bool { return strings.HasPrefix(name, ".") && name != "." }

// LoadDir reads every .md, .markdown, .txt, .html and .htm file under root,
// recursively, in byte order of their relative paths. Hidden files and
// folders are skipped. A symlink is followed only when it resolves to a
// file inside root (a symlink to a folder is not followed: its files are
// reached through their real path); a symlink that leaves root is an
// error, never silently read. All problems are collected and returned
// together as a *LoadError.
func LoadDir(root string, opt LoadOptions) ([]Doc, error) {
	opt = opt.withDefaults()
	var errs diag.List
	at := diag.Pos{Line: 1, Col: 1}
	fail := func() ([]Doc, error) { return nil, &LoadError{Diagnostics: errs} }

	if st, err := os.Stat(root); err != nil {
		errs.Errorf(root, at, CodeDir, "name an existing folder, relative to the flow file", "cannot open the retrieve folder: %v", unwrapPath(err))
		return fail()
	} else if !st.IsDir() {
		errs.Errorf(root, at, CodeDir, "name the folder that holds the documents, not a file", "%q is not a folder", root)
		return fail()
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err == nil {
		realRoot, err = filepath.Abs(realRoot)
	}
	r, err2 := os.OpenRoot(root)
	if err != nil || err2 != nil {
		errs.Errorf(root, at, CodeDir, "check the folder's permissions", "cannot open the retrieve folder: %v", unwrapPath(errors.Join(err, err2)))
		return fail()
	}
	defer r.Close()

	var files []string
	walkErr := fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		file := filepath.Join(root, filepath.FromSlash(p))
		if err != nil {
			errs.Errorf(file, at, CodeRead, "check the permissions of this path", "cannot read: %v", unwrapPath(err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == "." {
			return nil
		}
		if hidden(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(file)
			if err != nil {
				if kindOf(p) != "" {
					errs.Errorf(file, at, CodeRead, "remove the broken symlink or point it at an existing file inside the folder", "cannot follow the symlink: %v", unwrapPath(err))
				}
				return nil
			}
			if abs, err := filepath.Abs(target); err != nil || !inside(realRoot, abs) {
				errs.Errorf(file, at, CodeSymlink, "copy the file into the folder instead of linking to it",
					"the symlink points outside the retrieve folder (to %s); it is not read", target)
				return nil
			}
			st, err := os.Stat(target)
			if err != nil || !st.Mode().IsRegular() {
				return nil // a folder (reached by its real path) or a special file
			}
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		if kindOf(p) != "" {
			files = append(files, p)
		}
		return nil
	})
	if walkErr != nil {
		errs.Errorf(root, at, CodeRead, "check the folder's permissions", "cannot list the folder: %v", unwrapPath(walkErr))
	}
	sort.Strings(files)
	if len(files) > opt.MaxFiles {
		errs.Errorf(root, at, CodeFiles, "point the retrieve node at a smaller folder, or split the knowledge base",
			"the folder holds %d documents, more than the limit of %d", len(files), opt.MaxFiles)
		return fail()
	}

	docs := make([]Doc, 0, len(files))
	var total int64
	for _, p := range files {
		file := filepath.Join(root, filepath.FromSlash(p))
		data, d := readCapped(r, p, file, opt.MaxFileBytes)
		if d != nil {
			errs = append(errs, *d)
			continue
		}
		total += int64(len(data))
		if total > opt.MaxTotalBytes {
			errs.Errorf(root, at, CodeTotalSize, "point the retrieve node at a smaller folder, or remove large files from it",
				"the documents together are larger than the limit of %d bytes (reached at %s)", opt.MaxTotalBytes, p)
			break
		}
		text, d := decode(file, data)
		if d != nil {
			errs = append(errs, *d)
			continue
		}
		if kindOf(p) == "html" {
			text = StripHTML(text)
		}
		docs = append(docs, Doc{Path: p, Text: text})
	}
	if len(errs) > 0 {
		return fail()
	}
	if len(docs) == 0 {
		errs.Errorf(root, at, CodeEmpty, "put .md, .txt or .html files in the folder (hidden files and other extensions are skipped)",
			"the retrieve folder holds no documents")
		return fail()
	}
	return docs, nil
}

// readCapped reads one file through the os.Root, so that a symlink swapped
// in after the walk still cannot escape the folder, and never reads more
// than max+1 bytes even if the file grows meanwhile.
func readCapped(r *os.Root, p, file string, max int64) ([]byte, *diag.Diagnostic) {
	at := diag.Pos{Line: 1, Col: 1}
	mk := func(code, fix, format string, args ...any) *diag.Diagnostic {
		return &diag.Diagnostic{File: file, Line: at.Line, Col: at.Col, Severity: diag.Error, Code: code,
			Message: fmt.Sprintf(format, args...), Fix: fix}
	}
	f, err := r.Open(filepath.FromSlash(p))
	if err != nil {
		return nil, mk(CodeRead, "check the file's permissions", "cannot read: %v", unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, mk(CodeRead, "check the file's permissions", "cannot read: %v", unwrapPath(err))
	}
	if int64(len(data)) > max {
		return nil, mk(CodeFileSize, "split the document into smaller files, or remove it from the folder",
			"the file is larger than the limit of %d bytes", max)
	}
	return data, nil
}

// decode checks UTF-8 (reporting the line and column of the first bad
// byte), drops a byte-order mark and normalises CRLF and lone CR to LF, so
// that offsets do not depend on how a checkout stored line endings.
func decode(file string, data []byte) (string, *diag.Diagnostic) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		line, col := 1, 1
		for i := 0; i < len(data); {
			c, n := utf8.DecodeRune(data[i:])
			if c == utf8.RuneError && n <= 1 {
				break
			}
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i += n
		}
		return "", &diag.Diagnostic{File: file, Line: line, Col: col, Severity: diag.Error, Code: CodeEncoding,
			Message: "the file is not valid UTF-8", Fix: "save the file as UTF-8"}
	}
	s := string(data)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s, nil
}

// inside reports whether abs is root or below it (both absolute, clean).
func inside(root, abs string) bool {
	rel, err := filepath.Rel(root, abs)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// unwrapPath drops the operation and path that *fs.PathError repeats, as the
// diagnostic already names the file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

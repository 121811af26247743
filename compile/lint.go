package compile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
)

// StdinName is the file name diagnostics give a flow read from standard
// input (`agentlab lint -`).
const StdinName = "<stdin>"

// LintResult is what a lint of paths found: its diagnostics and every file
// it checked, so that a CI gate can tell "clean" from "found nothing".
type LintResult struct {
	Diagnostics diag.List
	// Checked lists every file that was checked, in the order found.
	// Evaluation suites are listed with KindSuite but not linted here:
	// package eval lints them (see eval.LintPaths), given these paths.
	Checked []LintedFile
}

// LintedFile is one file a lint checked and what it took it for.
type LintedFile struct {
	Path string
	Kind FileKind
}

// Suites returns the paths of the evaluation suites among the checked files.
func (r LintResult) Suites() []string {
	var out []string
	for _, f := range r.Checked {
		if f.Kind == KindSuite {
			out = append(out, f.Path)
		}
	}
	return out
}

// Lint lints every named file, every file a quoted glob pattern matches,
// every flow, card, patch and suite under every named directory, and
// standard input for the path "-" (read from stdin, as a flow).
//
// While walking a directory, directories whose name starts with a dot and
// those named node_modules and testdata are skipped (a path named
// explicitly is always linted). A plain *.yml/*.yaml file is a flow when it
// has a top-level `agentlab:` key, a top-level key that is a misspelling of
// it, or a top-level `nodes:` key; it is then linted as a flow, so that a
// misspelt `agentlab:` is an error naming the file rather than a flow
// silently passed over. Any other plain YAML file under a walked directory
// gets the warning W-LINT-NOT-A-FLOW naming it.
//
// The error is non-nil only when a path cannot be read or a pattern
// matches nothing; findings are diagnostics.
func Lint(paths []string, opts Options, stdin io.Reader) (LintResult, error) {
	var res LintResult
	s := newSession(opts)
	check := func(path string, k FileKind) {
		res.Checked = append(res.Checked, LintedFile{Path: path, Kind: k})
		if k != KindSuite {
			res.Diagnostics = append(res.Diagnostics, s.lintFile(path, k)...)
		}
	}
	for _, p := range paths {
		if p == "-" {
			data, err := readStdin(stdin)
			if err != nil {
				return res.sorted(), err
			}
			var l diag.List
			s.compileData(StdinName, data, opts.Tier, &l)
			res.Checked = append(res.Checked, LintedFile{Path: StdinName, Kind: KindFlow})
			res.Diagnostics = append(res.Diagnostics, l...)
			continue
		}
		named, err := expandPattern(p)
		if err != nil {
			return res.sorted(), err
		}
		for _, p := range named {
			st, err := os.Stat(p)
			if err != nil {
				return res.sorted(), fmt.Errorf("cannot read %s: %w", p, unwrapPathErr(err))
			}
			if !st.IsDir() {
				if err := readable(p); err != nil {
					return res.sorted(), err
				}
				check(p, namedKind(p))
				continue
			}
			if err := res.walk(p, check); err != nil {
				return res.sorted(), err
			}
		}
	}
	return res.sorted(), nil
}

func (r LintResult) sorted() LintResult {
	r.Diagnostics = r.Diagnostics.Sorted()
	return r
}

// walk checks every lintable file under dir.
func (r *LintResult) walk(dir string, check func(string, FileKind)) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("cannot read %s: %w", path, unwrapPathErr(err))
		}
		if d.IsDir() {
			if path != dir && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		k := KindOf(path, nil)
		if k == KindUnknown && isYAML(path) {
			head := peek(path)
			if k = KindOf(path, head); k == KindUnknown && looksLikeFlow(head) {
				k = KindFlow
			}
			if k == KindUnknown {
				r.Diagnostics.Warnf(path, diag.Pos{}, "W-LINT-NOT-A-FLOW",
					"if it is a flow, add `agentlab: 1` at the top; if it is not, keep it out of the directories you lint, or name the flows to lint",
					"this YAML file is not a flow (it has no top-level `agentlab:` or `nodes:` key) and was not checked")
				return nil
			}
		}
		if k == KindUnknown {
			return nil
		}
		if err := readable(path); err != nil {
			return err
		}
		check(path, k)
		return nil
	})
}

// namedKind is the kind of a file named explicitly: a file of unknown
// kind is linted as a flow.
func namedKind(path string) FileKind {
	if k := KindOf(path, peek(path)); k != KindUnknown {
		return k
	}
	return KindFlow
}

// looksLikeFlow reports whether a YAML file without a top-level
// `agentlab:` key is still meant as a flow: it has a top-level `nodes:`
// key or a key that is a misspelling of `agentlab`.
func looksLikeFlow(head []byte) bool {
	if hasTopLevelKey(head, "nodes") {
		return true
	}
	for _, k := range topLevelKeys(head) {
		if k != "agentlab" && diag.EditDistance(strings.ToLower(k), "agentlab") <= 2 {
			return true
		}
	}
	return false
}

// topLevelKeys lists the plain keys that start a line at column 0.
func topLevelKeys(data []byte) []string {
	var keys []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-' {
			continue
		}
		if k, _, ok := bytes.Cut(line, []byte(":")); ok {
			keys = append(keys, strings.Trim(strings.TrimSpace(string(k)), `"'`))
		}
	}
	return keys
}

// expandPattern returns the paths a quoted glob pattern matches (for
// shells that do not expand them), or the path itself when it names an
// existing file or has no pattern characters.
func expandPattern(p string) ([]string, error) {
	if _, err := os.Lstat(p); err == nil || !strings.ContainsAny(p, "*?[") {
		return []string{p}, nil
	}
	m, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("bad pattern %s: %v", p, err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no file matches %s", p)
	}
	return m, nil
}

// readStdin reads a flow from standard input, refusing one above the
// flow cap (fsutil.FlowCap).
func readStdin(r io.Reader) ([]byte, error) {
	if r == nil {
		r = os.Stdin
	}
	limit := fsutil.FlowCap.Bytes()
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read standard input: %v", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("standard input is larger than the %s cap of %d bytes; %s", fsutil.FlowCap.Key, limit, fsutil.FlowCap.Hint())
	}
	return data, nil
}

package compile

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
)

// Options tune a lint or compile.
type Options struct {
	// Tier lints as if the flow were at least this strict ("published" or
	// "governed"); "" keeps each flow's declared tier. It never weakens.
	Tier string
}

// LintPaths lints every named file and every flow, card and patch file
// under every named directory (see Lint, which also lists what it
// checked). The error is non-nil only when a path cannot be read;
// findings are diagnostics.
func LintPaths(paths []string, opts Options) (diag.List, error) {
	res, err := Lint(paths, opts, nil)
	return res.Diagnostics, err
}

// readable reports why a file cannot be opened, if it cannot.
func readable(path string) error {
	fh, _, err := fsutil.OpenRegular(path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", path, unwrapPathErr(err))
	}
	return fh.Close()
}

// skipDir reports whether a walk passes over a directory: hidden ones
// (.git, .agentlab, .github…), node_modules and testdata.
func skipDir(name string) bool {
	switch {
	case strings.HasPrefix(name, ".") && name != "." && name != "..":
		return true
	case name == "node_modules", name == "testdata":
		return true
	}
	return false
}

func isYAML(path string) bool {
	e := filepath.Ext(path)
	return e == ".yml" || e == ".yaml"
}

// peek reads the start of a file to classify it (a flow's `agentlab:` key
// is near the top; 64 KiB is plenty and keeps a walk over big trees cheap).
func peek(path string) []byte {
	fh, _, err := fsutil.OpenRegular(path) // never a FIFO: it could block forever
	if err != nil {
		return nil
	}
	defer fh.Close()
	buf := make([]byte, 64<<10)
	n, _ := fh.Read(buf)
	return buf[:n]
}

// LintFile lints one file by its kind; a file of unknown kind is linted
// as a flow (it was named explicitly).
func LintFile(path string, opts Options) diag.List {
	return newSession(opts).lintFile(path, KindOf(path, peek(path))).Sorted()
}

func (s *session) lintFile(path string, k FileKind) diag.List {
	switch k {
	case KindCard:
		_, l := LoadCard(path)
		return l
	case KindPatch:
		return presets.LintPatch(path)
	}
	_, l := s.compileFile(path, s.opts.Tier)
	return l
}

// CompileFile lints a flow and, when it has no errors, returns its plan.
// The returned plan is normalised: it equals what plan.Decode gives back
// for its canonical bytes, so the engine sees the same values whether it
// runs a flow or a plan file.
func CompileFile(path string, opts Options) (*plan.Plan, diag.List) {
	p, l := newSession(opts).compileFile(path, opts.Tier)
	return p, l.Sorted()
}

// readSource reads a file the compiler was asked to load, refusing files
// above the flow cap (fsutil.FlowCap, MaxFileSize by default), and devices, FIFOs and sockets, before reading them.
func readSource(path string, l *diag.List) ([]byte, bool) {
	data, err := fsutil.FlowCap.ReadFile(path)
	var big *fsutil.TooLargeError
	var odd *fsutil.NotRegularError
	switch {
	case errors.As(err, &big):
		size := "more"
		if big.Size >= 0 {
			size = fmt.Sprintf("%d bytes", big.Size)
		}
		l.Errorf(path, diag.Pos{Line: 1, Col: 1}, "E-YAML-TOO-LARGE",
			"split the file or make it smaller; "+fsutil.FlowCap.Hint(),
			"file is %s, larger than the %s cap of %d bytes", size, fsutil.FlowCap.Key, big.Limit)
		return nil, false
	case errors.As(err, &odd) && odd.Kind == "directory":
		l.Errorf(path, diag.Pos{}, "E-YAML-READ", "name a file, not a directory", "%s is a directory", path)
		return nil, false
	case errors.As(err, &odd):
		l.Errorf(path, diag.Pos{}, "E-YAML-READ", "name a regular file; devices, FIFOs and sockets are never read",
			"%s is a %s, not a regular file", path, odd.Kind)
		return nil, false
	}
	if err != nil {
		l.Errorf(path, diag.Pos{}, "E-YAML-READ", "check that the file exists and is readable",
			"cannot read file: %v", unwrapPathErr(err))
		return nil, false
	}
	return data, true
}

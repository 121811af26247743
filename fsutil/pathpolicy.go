package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ProjectRoots returns the directories the files a flow (or plan) in dir
// names must lie in: the project root — the directory of the nearest
// agentlab.toml at or above dir, else dir itself — and the extra roots
// that file lists under [paths] allow (relative to its directory). All are
// absolute, with symbolic links resolved.
func ProjectRoots(dir string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root := abs
	var allow []string
	if cfg := FindUp(abs, "agentlab.toml"); cfg != "" {
		root = filepath.Dir(cfg)
		b, err := ReadConfigFile(cfg)
		if err != nil {
			return nil, err
		}
		var c struct {
			Paths struct {
				Allow []string `toml:"allow"`
			} `toml:"paths"`
		}
		// Syntax errors are the config checks' to report; an unreadable
		// table grants nothing.
		if toml.Unmarshal(b, &c) == nil {
			for _, a := range c.Paths.Allow {
				if !filepath.IsAbs(a) {
					a = filepath.Join(root, a)
				}
				allow = append(allow, a)
			}
		}
	}
	var out []string
	for _, r := range append([]string{root}, allow...) {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		out = append(out, filepath.Clean(r))
	}
	return out, nil
}

// OutsideError says a path a flow names resolves outside every allowed root.
type OutsideError struct {
	Path     string // as written
	Resolved string // where it leads
	Roots    []string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%q leads to %s, outside the project (%s)", e.Path, e.Resolved, strings.Join(e.Roots, ", "))
}

// Fix is the sentence that says how to make such a path acceptable.
func (e *OutsideError) Fix() string {
	return "keep the file inside the project directory, or list its directory under [paths] allow in agentlab.toml"
}

// CheckInside resolves p (relative to base) with its symbolic links and
// refuses it when it leads outside every root: "..", absolute paths and
// links that leave the project are caught alike. A path that does not
// exist yet is judged by the deepest part of it that does.
func CheckInside(roots []string, base, p string) (string, error) {
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(base, full)
	}
	full, err := filepath.Abs(full)
	if err != nil {
		return "", err
	}
	resolved := resolveExisting(full)
	for _, r := range roots {
		if resolved == r || strings.HasPrefix(resolved, r+string(filepath.Separator)) {
			return full, nil
		}
	}
	return full, &OutsideError{Path: p, Resolved: resolved, Roots: roots}
}

// resolveExisting evaluates the symbolic links of the longest existing
// prefix of path and appends the rest. A dangling link is followed to
// where it points (it would be created there).
func resolveExisting(path string) string { return resolveDepth(path, 0) }

func resolveDepth(path string, depth int) string {
	rest := ""
	for p := path; ; {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest)
		}
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 && depth < 40 {
			if target, rerr := os.Readlink(p); rerr == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(p), target)
				}
				return resolveDepth(filepath.Join(target, rest), depth+1)
			}
		} else if lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
			return path
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

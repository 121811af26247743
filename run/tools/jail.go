package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Workspace is the directory the file tools may see, and nothing else.
//
// The jail has two layers. resolve checks a requested path lexically and
// by resolving its symbolic links, so that a refusal carries a precise
// reason (absolute path, "~", "..", a link leading out). The files are then
// opened through an os.Root, which refuses at open time any component that
// would leave the directory; a link swapped in between the check and the
// open therefore still cannot escape.
type Workspace struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
}

// OpenWorkspace opens dir as a jail root.
func OpenWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	return &Workspace{dir: real, root: root}, nil
}

// Dir is the workspace's real path.
func (w *Workspace) Dir() string { return w.dir }

// Close releases the directory handle.
func (w *Workspace) Close() error { return w.root.Close() }

// jailFix is the sentence every jail refusal ends with.
const jailFix = "give a path relative to the workspace root, without .. and without links that lead outside it"

// resolve checks p and returns it cleaned, relative to the workspace
// ("." for the root). It never reveals where an outside link points.
func (w *Workspace) resolve(tool, p string) (string, error) {
	bad := func(format string, args ...any) error {
		return refuse(tool, CodeJail, jailFix, format, args...)
	}
	switch {
	case p == "":
		return ".", nil
	case strings.ContainsRune(p, 0):
		return "", bad("path contains a NUL byte")
	case strings.HasPrefix(p, "~"):
		return "", bad("path %q is relative to a home directory (~); only the workspace is visible", p)
	case filepath.IsAbs(p) || strings.HasPrefix(p, `\`):
		return "", bad("path %q is absolute; only paths inside the workspace are accepted", p)
	}
	rel := filepath.Clean(p)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", bad("path %q climbs out of the workspace with ..", p)
	}
	// Resolve links one component at a time so the reason can name the
	// component whose link leads out.
	cur := w.dir
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		if part == "." {
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return rel, nil // opening reports it; nothing beyond can be a link
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(next)
			shown := strings.Join(parts[:i+1], "/")
			if err != nil {
				return "", bad("%q is a symbolic link that cannot be resolved (it may point outside the workspace)", shown)
			}
			if !within(w.dir, target) {
				return "", bad("%q is a symbolic link that leads outside the workspace", shown)
			}
			next = target
		}
		cur = next
	}
	return rel, nil
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r)
}

// openErr turns an error from the os.Root into a refusal or a plain
// message naming the path as the caller wrote it.
func openErr(tool, p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(tool, CodeArgs, "list the directory with file_list to see what exists", "%q does not exist in the workspace", p)
	case strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"):
		return refuse(tool, CodeJail, jailFix, "%q leads outside the workspace", p)
	case errors.Is(err, fs.ErrPermission):
		return refuse(tool, CodeArgs, "", "%q cannot be read (permission denied)", p)
	}
	return fmt.Errorf("%s: %q: %w", tool, p, err)
}

// Canonical returns the workspace-relative path a file tool would really
// open for p: cleaned, "./" and inner ".." removed, and links inside the
// workspace resolved, so that a permission rule on "secrets/*" also sees
// "./secrets/key", "docs/../secrets/key" and a link to secrets/. A path
// the jail refuses is returned with the refusal.
func (w *Workspace) Canonical(p string) (string, error) {
	rel, err := w.resolve("", p)
	if err != nil {
		return "", err
	}
	cur, rest := filepath.Join(w.dir, rel), []string(nil)
	full := cur
	for {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			full = filepath.Join(append([]string{real}, rest...)...)
			break
		}
		if cur == w.dir || cur == filepath.Dir(cur) {
			break
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = filepath.Dir(cur)
	}
	r, err := filepath.Rel(w.dir, full)
	if err != nil || !within(w.dir, full) {
		return rel, nil
	}
	return filepath.ToSlash(r), nil
}

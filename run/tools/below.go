package tools

import (
	"io/fs"
	"path/filepath"
)

// Below lists what a file tool called on the directory p reaches: p
// itself and every entry beneath it, workspace-relative and canonical
// (Canonical: a link inside the workspace as the path it leads to), so
// that a permission rule denying secrets/* also holds for a grep or a
// listing of the directory above it. It stops after max entries, with
// more set; a path the jail refuses lists nothing.
func (w *Workspace) Below(p string, max int) (entries []string, more bool) {
	rel, err := w.Canonical(p) // a link to a directory is walked as its target
	if err != nil {
		return nil, false
	}
	_ = fs.WalkDir(w.root.FS(), filepath.ToSlash(rel), func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if len(entries) >= max {
			more = true
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if c, err := w.Canonical(q); err == nil {
				q = c
			}
		}
		entries = append(entries, q)
		return nil
	})
	return entries, more
}

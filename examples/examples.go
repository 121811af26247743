// Package examples embeds the runnable example flows, with their data, so
// that `agentlab examples init NAME` works from the binary alone.
//
// Where it fits: docs/architecture.md#supporting-packages.
package examples

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Example is one embedded example directory.
type Example struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

// List returns every example (a directory with a flow.yml), sorted by name.
// The summary is the first sentence of the example's README after its title.
func List() []Example {
	entries, _ := fs.ReadDir(files, ".")
	var out []Example
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(files, path.Join(e.Name(), "flow.yml")); err != nil {
			continue
		}
		out = append(out, Example{Name: e.Name(), Summary: summary(e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func summary(name string) string {
	f, err := files.Open(path.Join(name, "README.md"))
	if err != nil {
		return ""
	}
	defer f.Close()
	// The first paragraph after the title, cut after its first sentence.
	sc := bufio.NewScanner(f)
	var para []string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") && len(para) == 0 {
			continue
		}
		if line == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, line)
	}
	text := strings.Join(para, " ")
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	return text
}

// ErrUnknown is returned for a name that is not an example.
var ErrUnknown = errors.New("unknown example")

// Init copies example name into dir (created when missing). It refuses to
// overwrite an existing file and never writes outside dir.
func Init(name, dir string) ([]string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	if _, err := fs.Stat(files, path.Join(name, "flow.yml")); err != nil {
		return nil, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	// Every directory and file is created through an os.Root on dir: a
	// symbolic link planted in dir (data -> /elsewhere) cannot make the copy
	// write outside it, and O_EXCL refuses a link under a file's name.
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := checkTarget(r, root, name); err != nil {
		return nil, err
	}
	var written []string
	err = fs.WalkDir(files, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, name), "/")
		target := filepath.Join(root, filepath.FromSlash(rel))
		if target != root && !strings.HasPrefix(target, root+string(filepath.Separator)) {
			return fmt.Errorf("refusing to write %s outside %s", target, root)
		}
		if rel == "" {
			return nil
		}
		if d.IsDir() {
			if err := r.MkdirAll(filepath.FromSlash(rel), 0o755); err != nil {
				return fmt.Errorf("refusing to create %s: %w (a link in %s may point outside it)", target, err, root)
			}
			return nil
		}
		if _, err := r.Lstat(filepath.FromSlash(rel)); err == nil {
			return fmt.Errorf("%s already exists; choose an empty directory", target)
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := r.OpenFile(filepath.FromSlash(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("refusing to write %s: %w", target, err)
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		written = append(written, target)
		return nil
	})
	return written, err
}

// checkTarget refuses, before anything is written, a target directory in
// which the copy could not complete: a file of the example already there,
// or a link (or anything but a directory) under the name of one of its
// directories. Without it a planted link stopped the copy half-way, after
// README.md had been written.
func checkTarget(r *os.Root, root, name string) error {
	return fs.WalkDir(files, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, name), "/"))
		if rel == "" {
			return nil
		}
		target := filepath.Join(root, rel)
		fi, err := r.Lstat(rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return fmt.Errorf("refusing to write %s: %w (a link in %s may point outside it); nothing was written", target, err, root)
		case d.IsDir() && !fi.IsDir():
			return fmt.Errorf("refusing to write into %s: it is not a directory (a link?); nothing was written", target)
		case !d.IsDir():
			return fmt.Errorf("%s already exists; choose an empty directory (nothing was written)", target)
		}
		return nil
	})
}

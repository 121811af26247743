package sandbox

import (
	"bytes"
	"path/filepath"
	"sort"
)

// hostPaths maps the host directories a program under the process backend
// runs in to the names the same program sees under bwrap: its working
// directory is /work, its code directory /code and its temporary directory
// /tmp. The host names hold random parts (and the data directory's path),
// so a program that prints them — a Python traceback names its file — would
// otherwise make two identical runs record different output, and the seal
// differ, under the very backend pinned to compare seals between machines.
type hostPaths struct {
	from [][]byte
	to   [][]byte
}

// newHostPaths lists each directory under its given and its resolved name
// (a program reads the resolved one from getcwd), longest first, so that
// the temporary directory inside the code directory is rewritten as /tmp
// before the code directory around it.
func newHostPaths(work, code, tmp string) *hostPaths {
	type pair struct{ host, view string }
	var ps []pair
	seen := map[string]bool{}
	add := func(host, view string) {
		for _, h := range []string{host, resolved(host)} {
			if h != "" && h != "/" && !seen[h] {
				seen[h] = true
				ps = append(ps, pair{h, view})
			}
		}
	}
	add(tmp, "/tmp")
	add(code, "/code")
	add(work, "/work")
	sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].host) > len(ps[j].host) })
	h := &hostPaths{}
	for _, p := range ps {
		h.from = append(h.from, []byte(p.host))
		h.to = append(h.to, []byte(p.view))
	}
	return h
}

func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// rewrite returns b with every host directory written as the program's
// view of it.
func (h *hostPaths) rewrite(b []byte) []byte {
	for i, from := range h.from {
		if bytes.Contains(b, from) {
			b = bytes.ReplaceAll(b, from, h.to[i])
		}
	}
	return b
}

package compile

import (
	"errors"

	"github.com/agentlab/agentlab/fsutil"
)

// CodePathOutside is a file a flow names that lies outside the project:
// `..` that climbs out, an absolute path, or a symbolic link that leads
// out. The project is the directory of the nearest agentlab.toml (else
// the flow's directory) plus the roots its [paths] allow lists.
const CodePathOutside = "E-PATH-OUTSIDE"

// inside reports whether p, a path the flow names at v (relative to the
// flow's directory), stays inside the project, reporting E-PATH-OUTSIDE
// when it does not. A file outside is never read, so its content can
// reach neither the plan nor the bundle.
func (f *flow) inside(v *V, p, what string) bool {
	if f.roots == nil {
		roots, err := fsutil.ProjectRoots(f.dir)
		if err != nil {
			return true // the file's own read reports what is wrong
		}
		f.roots = roots
	}
	_, err := fsutil.CheckInside(f.roots, f.dir, p)
	var oe *fsutil.OutsideError
	if errors.As(err, &oe) {
		f.l.Errorf(f.src.file, v.Pos(), CodePathOutside, oe.Fix(), "%s %s", what, oe.Error())
		return false
	}
	return true
}

// checkNodePaths checks the retrieve folders the nodes name; code files
// and subflows are checked where they are read.
func (f *flow) checkNodePaths() {
	for _, n := range f.nodes {
		if n.typ == "retrieve" {
			if p := n.str("from"); p != "" {
				f.inside(n.v.Get("from"), p, "the knowledge folder of node "+n.id)
			}
		}
	}
}

package run

import (
	"errors"
	"sort"

	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/plan"
)

// checkPlanPaths holds a plan to the rule lint holds a flow to (E-PATH-OUTSIDE,
// docs/diagnostics.md): its data files and knowledge folders lie inside the
// project of the directory it was run from. A plan edited by hand to name
// /etc/passwd is refused before the run exists, and the file is never read.
func checkPlanPaths(baseDir string, p *plan.Plan) error {
	if baseDir == "" {
		return nil
	}
	roots, err := fsutil.ProjectRoots(baseDir)
	if err != nil {
		return nil // reading the files reports what is wrong
	}
	check := func(what, path string) error {
		_, err := fsutil.CheckInside(roots, baseDir, path)
		var oe *fsutil.OutsideError
		if errors.As(err, &oe) {
			return usage("E-PATH-OUTSIDE %s: %v; %s", what, oe, oe.Fix())
		}
		return nil
	}
	names := make([]string, 0, len(p.Sources))
	for k := range p.Sources {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := check("the data file of source "+k, p.Sources[k].Path); err != nil {
			return err
		}
	}
	var walk func(nodes []plan.Node) error
	walk = func(nodes []plan.Node) error {
		for i := range nodes {
			n := &nodes[i]
			if n.Type == "retrieve" {
				if from := n.Str("from"); from != "" {
					if err := check("the knowledge folder of node "+n.ID, from); err != nil {
						return err
					}
				}
			}
			if n.Body != nil {
				if err := walk(n.Body.Nodes); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(p.Nodes)
}

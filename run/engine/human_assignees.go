package engine

import (
	"fmt"
	"strings"
)

// renderAssignees renders each of a human node's assignees (a name or a
// template such as "{{ input.owner }}") into the names that may decide.
// A name that renders empty fails the node: an empty assignee would let
// an unnamed person decide, or make the node wait for nobody. A name
// listed twice fails it too, because decision: all and quorum:M count
// people, not entries.
func renderAssignees(t *task) ([]string, error) {
	var out []string
	seen := map[string]int{}
	for i, src := range strList(t.node.Spec["assignees"]) {
		name, err := render(src, t.sc.env())
		if err != nil {
			return nil, fmt.Errorf("node %q: assignee %d (%s): %v", t.id, i+1, src, err)
		}
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("node %q: assignee %d (%s) renders empty, so nobody would be named to decide; give it a value (e.g. --input NAME=VALUE for an input) or remove it", t.id, i+1, src)
		}
		if j, ok := seen[name]; ok {
			return nil, fmt.Errorf("node %q: assignees %d and %d both render %q; name each person once", t.id, j+1, i+1, name)
		}
		seen[name] = i
		out = append(out, name)
	}
	return out, nil
}

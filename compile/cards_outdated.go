package compile

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/plan"
)

// OutdatedCards compares the card versions a compiled plan computes with
// the card files found from dir (the plan's directory, searched as compile
// searches from the flow's) and returns one sentence per card whose file
// now holds a newer version. A plan compiled before its card moved on
// would otherwise keep computing the old definition, formally and without
// a word. Cards whose file cannot be found or read are left to the run.
func OutdatedCards(dir string, p *plan.Plan) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(nodes []plan.Node)
	walk = func(nodes []plan.Node) {
		for i := range nodes {
			n := &nodes[i]
			if n.Body != nil {
				walk(n.Body.Nodes)
			}
			if n.Type != "metrics" {
				continue
			}
			key := n.Str("card_resolved")
			if key == "" {
				key = n.Str("card")
			}
			name, ver, ok := strings.Cut(key, "@")
			if !ok || seen[key] {
				continue
			}
			seen[key] = true
			have, _ := strconv.Atoi(ver)
			path, found := findCard(dir, name)
			if !found {
				continue
			}
			c, _ := LoadCard(path)
			if c == nil || c.Version <= have {
				continue
			}
			rel := path
			if abs, err := filepath.Abs(dir); err == nil {
				if r, err := filepath.Rel(abs, path); err == nil {
					rel = r
				}
			}
			out = append(out, fmt.Sprintf("card %s is at version %d in %s, but the plan computes version %d (node %q)", name, c.Version, filepath.ToSlash(rel), have, n.ID))
		}
	}
	walk(p.Nodes)
	sort.Strings(out)
	return out
}

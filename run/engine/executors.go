package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/plan"
)

// executor runs one node type. Leaf executors hold a pool slot while they
// work; container executors (loop, subgraph, validate) schedule other nodes
// and must not, or a nested graph could wait forever for a slot its
// parent holds.
type executor struct {
	leaf bool
	run  func(ctx context.Context, t *task) (any, effects, error)
}

// executors maps every node type this version runs to its executor. Each
// executor file adds its own types from an init function with
// registerExecutor, so that node types live one per file.
var executors = map[string]executor{}

// registerExecutor makes a node type runnable.
func registerExecutor(typ string, e executor) {
	if _, dup := executors[typ]; dup {
		panic("engine: executor registered twice: " + typ)
	}
	executors[typ] = e
}

func init() {
	registerExecutor("input", executor{leaf: true, run: execInput})
	registerExecutor("output", executor{leaf: true, run: execOutput})
	registerExecutor("transform", executor{leaf: true, run: execTransform})
	registerExecutor("branch", executor{leaf: true, run: execBranch})
	registerExecutor("memory", executor{leaf: true, run: execMemory})
	registerExecutor("llm", executor{leaf: true, run: execLLM})
	registerExecutor("loop", executor{run: execLoop})
	registerExecutor("subgraph", executor{run: execSubgraph})
	registerExecutor("validate", executor{run: execValidate})
}

// SupportedTypes lists the node types this version can run.
func SupportedTypes() []string {
	out := make([]string, 0, len(executors))
	for t := range executors {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func unsupported(id, typ string) error {
	return fmt.Errorf("node %q has type %q, which is not supported by this version yet; the types that run are %s", id, typ, strings.Join(SupportedTypes(), ", "))
}

// CheckSupported refuses a plan that contains a node type without an
// executor, before any node runs: a run never stops half-way, and never
// skips such a node silently. Loop bodies and subflows are checked too.
func CheckSupported(p *plan.Plan) error {
	var errs []string
	seen := map[*plan.Plan]bool{}
	var walkPlan func(p *plan.Plan, prefix string)
	var walkGraph func(nodes []plan.Node, prefix string)
	walkGraph = func(nodes []plan.Node, prefix string) {
		for i := range nodes {
			n := &nodes[i]
			if _, ok := executors[n.Type]; !ok {
				errs = append(errs, unsupported(prefix+n.ID, n.Type).Error())
			}
			if n.Body != nil {
				walkGraph(n.Body.Nodes, prefix+n.ID+"[].")
			}
		}
	}
	walkPlan = func(p *plan.Plan, prefix string) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		walkGraph(p.Nodes, prefix)
		keys := make([]string, 0, len(p.Subflows))
		for k := range p.Subflows {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkPlan(p.Subflows[k], "subflow "+shortPin(k)+": ")
		}
	}
	walkPlan(p, "")
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(errs, "\n"))
}

func shortPin(k string) string {
	if len(k) > 15 {
		return k[:15]
	}
	return k
}
